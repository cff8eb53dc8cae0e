package io.jrma.msg;

import io.jrma.ErrorClass;
import io.jrma.Jrma;
import io.jrma.RmaException;
import io.jrma.core.os.Affinity;

/**
 * The run-time parameters of a messenger's {@link Collectives} ({@code jrma.coll.*}), read once when they are made:
 * counts, and the waiter their waits use. Static; a bad value is ERR_ARG.
 */
final class CollParams {
    private CollParams() {
    }

    /**
     * The waiter of a rank's collective waits: the messenger's spins and park, after {@code jrma.coll.spinNs} of
     * spinning (auto: 2 ms when the {@code p} ranks do not outnumber the cores, else 0) and {@code jrma.coll.yields}
     * yields (auto: the messenger's).
     */
    static Waiter waiter(Messenger m, int p) {
        String spin = Jrma.parameter(m.comm, "jrma.coll.spinNs");
        long spinNs;
        if ("auto".equals(spin)) {
            spinNs = p > Affinity.cores() ? 0 : 2_000_000L;
        } else {
            spinNs = parse("jrma.coll.spinNs", spin);
        }
        String y = Jrma.parameter(m.comm, "jrma.coll.yields");
        int yields = "auto".equals(y.trim()) ? m.cfg.waitYields
                : (int) Math.min(Integer.MAX_VALUE, parse("jrma.coll.yields", y));
        return new Waiter(m.cfg.waitSpins, yields, m.cfg.waitMaxParkNs, spinNs);
    }

    /** The count {@code name} (a run-time parameter of the job). */
    static long count(Messenger m, String name) {
        return parse(name, Jrma.parameter(m.comm, name));
    }

    private static long parse(String name, String v) {
        try {
            long x = Long.parseLong(v.trim());
            if (x >= 0) {
                return x;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new RmaException(ErrorClass.ERR_ARG, "run-time parameter " + name + "=" + v + " is not a count >= 0");
    }
}
