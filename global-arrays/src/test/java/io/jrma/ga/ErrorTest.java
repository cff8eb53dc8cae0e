package io.jrma.ga;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Comm;
import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Bad input gets an RmaException with an MPI error class and a message naming the problem. */
class ErrorTest {
    static void expect(ErrorClass ec, String fragment, Executable e) {
        RmaException ex = assertThrows(RmaException.class, e);
        assertEquals(ec, ex.errorClass(), ex.getMessage());
        assertTrue(ex.getMessage().contains(fragment), ex.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"auto", "packet"})
    @Timeout(60)
    void badInput(String path) {
        TestSupport.JOBS.run(path, 2, world -> {
            GlobalArray a = GlobalArray.builder(world, ElemType.DOUBLE, 6, 5).name("A").create();
            double[] buf = new double[30];
            expect(ErrorClass.ERR_RMA_RANGE, "outside array 'A'", () -> a.get(new int[] {0, 0}, new int[] {6, 4}, buf));
            expect(ErrorClass.ERR_RMA_RANGE, "outside", () -> a.put(new int[] {-1, 0}, new int[] {2, 4}, buf));
            expect(ErrorClass.ERR_ARG, "needs 2 indices", () -> a.get(new int[] {0}, new int[] {1}, buf));
            expect(ErrorClass.ERR_ARG, "hi < lo - 1", () -> a.get(new int[] {3, 0}, new int[] {1, 1}, buf));
            expect(ErrorClass.ERR_TYPE, "int[]", () -> a.get(new int[] {0, 0}, new int[] {1, 1}, new int[4]));
            expect(ErrorClass.ERR_TYPE, "float[]", () -> a.acc(new int[] {0, 0}, new int[] {1, 1}, new float[4], 1));
            expect(ErrorClass.ERR_BUFFER, "needs 6 buffer elements",
                    () -> a.get(new int[] {0, 0}, new int[] {1, 2}, new double[5]));
            expect(ErrorClass.ERR_BUFFER, "needs",
                    () -> a.put(new int[] {0, 0}, new int[] {1, 2}, ByteBuffer.allocateDirect(40)));
            expect(ErrorClass.ERR_BUFFER, "String", () -> a.put(new int[] {0, 0}, new int[] {1, 2}, "x"));
            expect(ErrorClass.ERR_BUFFER, "null", () -> a.put(new int[] {0, 0}, new int[] {1, 2}, null));
            expect(ErrorClass.ERR_ARG, "ld[0]", () -> a.get(new int[] {0, 0}, new int[] {1, 2}, buf, 0, new int[] {2}));
            expect(ErrorClass.ERR_TYPE, "INT or LONG", () -> a.readInc(new int[] {0, 0}, 1));
            expect(ErrorClass.ERR_RMA_RANGE, "subscript", () -> a.scatter(new double[1], new int[][] {{0, 5}}));
            expect(ErrorClass.ERR_RANK, "rank 7", () -> a.distribution(7));
            expect(ErrorClass.ERR_ARG, "block or irregular", () ->
                    GlobalArray.builder(world, ElemType.INT,
                    8).distribution(Distribution.blockCyclic(2)).ghosts(1).create());
            expect(ErrorClass.ERR_ARG, "needs 3 ranks", () ->
                    GlobalArray.create(world, ElemType.INT, new int[] {8}, Distribution.block(3)));
            expect(ErrorClass.ERR_ARG, "increase strictly", () ->
                    GlobalArray.create(world, ElemType.INT, new int[] {8},
                    Distribution.irregular(new int[][] {{0, 9}})));
            expect(ErrorClass.ERR_DIMS, "dimension 0", () -> GlobalArray.create(world, ElemType.INT, 0));
            // an array of another communicator (a split of the world) used with this one
            Comm self = world.split(world.rank(), 0);
            GlobalArray b = GlobalArray.create(self, ElemType.DOUBLE, 6, 5);
            expect(ErrorClass.ERR_COMM, "different communicator", () -> a.copyFrom(b));
            expect(ErrorClass.ERR_COMM, "different communicator", () -> a.dot(b));
            GlobalArray c = GlobalArray.create(world, ElemType.INT, 6, 5);
            expect(ErrorClass.ERR_ARG, "is INT[6, 5]", () -> a.add(1, a, 1, c));
            b.free();
            c.free();
            a.free();
            expect(ErrorClass.ERR_WIN, "'A' was freed", () -> a.get(new int[] {0, 0}, new int[] {1, 1}, buf));
            expect(ErrorClass.ERR_WIN, "was freed", () -> a.sync());
            expect(ErrorClass.ERR_WIN, "was freed", () -> a.locate(0, 0));
            GaMutexes mx = GaMutexes.create(world, 2);
            expect(ErrorClass.ERR_ARG, "mutex 2", () -> mx.lock(2));
            expect(ErrorClass.ERR_RMA_SYNC, "not held", () -> mx.unlock(1));
            mx.free();
            expect(ErrorClass.ERR_WIN, "freed", () -> mx.lock(0));
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"auto", "packet"})
    @Timeout(60)
    void ranksDisagreeingOnCreationArguments(String path) {
        TestSupport.JOBS.run(path, 3, world -> {
            int n = world.rank() == 1 ? 9 : 8;
            expect(ErrorClass.ERR_NOT_SAME, "ranks passed different", () -> GlobalArray.create(world, ElemType.INT, n));
        });
    }
}
