package mpitests;

import java.util.Arrays;

/** Assertions for the mpi test programs: a failed check throws, which fails the rank and so the job. */
final class Check {
    private Check() {
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    static void eq(long expected, long actual, String what) {
        if (expected != actual) {
            throw new AssertionError(what + ": expected " + expected + ", got " + actual);
        }
    }

    static void eq(double expected, double actual, String what) {
        if (Double.compare(expected, actual) != 0
                && Math.abs(expected - actual) > 1e-9 * Math.max(1, Math.abs(expected))) {
            throw new AssertionError(what + ": expected " + expected + ", got " + actual);
        }
    }

    static void eq(Object expected, Object actual, String what) {
        if (expected == null ? actual != null : !expected.equals(actual)) {
            throw new AssertionError(what + ": expected " + expected + ", got " + actual);
        }
    }

    static void eq(int[] expected, int[] actual, String what) {
        if (!Arrays.equals(expected, actual)) {
            throw new AssertionError(what + ": expected " + Arrays.toString(expected) + ", got "
                    + Arrays.toString(actual));
        }
    }

    static void eq(long[] expected, long[] actual, String what) {
        if (!Arrays.equals(expected, actual)) {
            throw new AssertionError(what + ": expected " + Arrays.toString(expected) + ", got "
                    + Arrays.toString(actual));
        }
    }

    static void eq(double[] expected, double[] actual, String what) {
        if (!Arrays.equals(expected, actual)) {
            throw new AssertionError(what + ": expected " + Arrays.toString(expected) + ", got "
                    + Arrays.toString(actual));
        }
    }

    /** Runs {@code body}, which must throw an MPIException of error class {@code errorClass}. */
    static void fails(int errorClass, Body body, String what) {
        try {
            body.run();
        } catch (mpi.MPIException e) {
            if (e.getErrorClass() != errorClass) {
                throw new AssertionError(what + ": expected error class " + errorClass + ", got " + e.getErrorClass()
                        + " (" + e.getMessage() + ")", e);
            }
            return;
        } catch (Exception e) {
            throw new AssertionError(what + ": expected MPIException of class " + errorClass + ", got " + e, e);
        }
        throw new AssertionError(what + ": expected MPIException of class " + errorClass + ", nothing thrown");
    }

    @FunctionalInterface
    interface Body {
        void run() throws Exception;
    }
}
