package io.jrma.core.op;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.ErrorClass;
import io.jrma.Op;
import io.jrma.RmaException;
import io.jrma.core.dt.BasicType;
import io.jrma.core.mem.Memory;
import io.jrma.core.op.KernelHarness.Mode;
import io.jrma.core.op.KernelHarness.OpType;
import org.junit.jupiter.api.Test;

/** Exhaustive sweeps over the (op, type) table and alignments, plus hand-picked cases. */
class AccumulateKernelTest {

    @Test
    void opConstantsNamesAndLookup() {
        Op[] all = {Op.SUM, Op.PROD, Op.MIN, Op.MAX, Op.LAND, Op.LOR, Op.LXOR, Op.BAND, Op.BOR, Op.BXOR,
            Op.MINLOC, Op.MAXLOC, Op.REPLACE, Op.NO_OP};
        assertEquals(OpCode.values().length, all.length);
        for (int i = 0; i < all.length; i++) {
            OpCode code = OpCode.values()[i];
            assertSame(code, all[i].code());
            assertSame(all[i], Op.of(code));
            assertEquals("MPI_" + code.name(), all[i].name());
            assertEquals(all[i].name(), all[i].toString());
        }
        assertFalse(Op.SUM.isValidFor(null));
        assertTrue(Op.MIN.isValidFor(BasicType.CHAR));
        assertFalse(Op.LAND.isValidFor(BasicType.DOUBLE));
    }

    @Test
    void validityTableMatchesMpiRules() {
        int valid = 0;
        for (OpCode op : OpCode.values()) {
            for (BasicType t : BasicType.values()) {
                boolean expected = KernelHarness.expectedValid(op, t);
                assertEquals(expected, Op.of(op).isValidFor(t), op + " on " + t);
                assertEquals(expected, AccumulateKernel.isValid(op, t), op + " on " + t);
                valid += expected ? 1 : 0;
            }
        }
        assertEquals(158, valid);
    }

    @Test
    void everyValidPairAtEveryAlignmentMatchesModel() {
        for (OpType p : KernelHarness.pairs(true)) {
            for (Mode mode : Mode.values()) {
                for (int mis = 0; mis < 8; mis++) {
                    for (long seed = 0; seed < 3; seed++) {
                        KernelHarness.check(mode, p.op(), p.t(), 9, mis, (mis * 5 + (int) seed) & 7,
                            seed * 1_000_003 + mis, false);
                    }
                    KernelHarness.check(mode, p.op(), p.t(), 5, mis, 7 - mis, mis, true);
                }
            }
        }
    }

    @Test
    void everyInvalidPairThrowsErrOp() {
        for (OpType p : KernelHarness.pairs(false)) {
            KernelHarness.checkInvalid(p.op(), p.t());
        }
        RmaException e = assertThrows(RmaException.class, () -> AccumulateKernel.check(null, BasicType.INT));
        assertEquals(ErrorClass.ERR_OP, e.errorClass());
    }

    @Test
    void negativeCountIsErrCount() {
        RmaException e = assertThrows(RmaException.class,
            () -> AccumulateKernel.accumulate(OpCode.SUM, BasicType.INT, null, 0, null, 0, -1));
        assertEquals(ErrorClass.ERR_COUNT, e.errorClass());
    }

    @Test
    void compareAndSwapAllTypesAndAlignments() {
        for (BasicType t : BasicType.values()) {
            if (t.kind() == BasicType.Kind.COMPLEX || t.kind() == BasicType.Kind.PAIR) {
                continue;
            }
            for (int mis = 0; mis < 8; mis++) {
                for (int seed = 0; seed < 6; seed++) {
                    KernelHarness.checkCas(t, mis, seed, seed % 2 == 0, seed == 5);
                }
            }
        }
    }

    @Test
    void compareAndSwapComparesBitPatterns() {
        long mem = Memory.allocate(64);
        try {
            long cmp = mem;
            long src = mem + 8;
            long dst = mem + 16;
            long res = mem + 24;
            Memory.putDoublePlain(cmp, 0.0);
            Memory.putDoublePlain(src, 7.0);
            Memory.putDoublePlain(dst, -0.0);
            assertFalse(AccumulateKernel.compareAndSwap(BasicType.DOUBLE, null, cmp, null, src, null, dst, null, res));
            assertEquals(Double.doubleToRawLongBits(-0.0), Memory.getLongPlain(res));
            assertEquals(Double.doubleToRawLongBits(-0.0), Memory.getLongPlain(dst));
            Memory.putDoublePlain(cmp, Double.NaN);
            Memory.putDoublePlain(dst, Double.NaN);
            assertTrue(AccumulateKernel.compareAndSwap(BasicType.DOUBLE, null, cmp, null, src, null, dst, null, res));
            assertEquals(7.0, Memory.getDoublePlain(dst));
        } finally {
            Memory.free(mem);
        }
    }

    @Test
    void compareAndSwapRejectsComplexAndPairTypes() {
        for (BasicType t : BasicType.values()) {
            if (t.kind() == BasicType.Kind.COMPLEX || t.kind() == BasicType.Kind.PAIR) {
                RmaException e = assertThrows(RmaException.class,
                    () -> AccumulateKernel.compareAndSwap(t, null, 0, null, 0, null, 0, null, 0));
                assertEquals(ErrorClass.ERR_TYPE, e.errorClass());
                assertTrue(e.getMessage().contains(t.name()));
            }
        }
    }

    @Test
    void handPickedSemantics() {
        long mem = Memory.allocate(64);
        try {
            // UINT8 MAX is unsigned; INT8 MAX is signed
            Memory.putBytePlain(mem, (byte) 0x80);
            Memory.putBytePlain(mem + 1, (byte) 0x7F);
            AccumulateKernel.accumulate(OpCode.MAX, BasicType.UINT8, null, mem + 1, null, mem, 1);
            assertEquals((byte) 0x80, Memory.getBytePlain(mem));
            AccumulateKernel.accumulate(OpCode.MAX, BasicType.INT8, null, mem + 1, null, mem, 1);
            assertEquals((byte) 0x7F, Memory.getBytePlain(mem));
            // logical ops store 1 in the element's width
            Memory.putLongPlain(mem + 8, 0x0000_0000_0000_0500L);
            Memory.putLongPlain(mem + 16, 0x0000_0000_0000_0030L);
            AccumulateKernel.accumulate(OpCode.LAND, BasicType.INT, null, mem + 16, null, mem + 8, 1);
            assertEquals(1L, Memory.getLongPlain(mem + 8));
            // complex product (1+2i)(3+4i) = -5+10i
            Memory.putFloatPlain(mem + 24, 1f);
            Memory.putFloatPlain(mem + 28, 2f);
            Memory.putFloatPlain(mem + 32, 3f);
            Memory.putFloatPlain(mem + 36, 4f);
            AccumulateKernel.accumulate(OpCode.PROD, BasicType.FLOAT_COMPLEX, null, mem + 32, null, mem + 24, 1);
            assertEquals(-5f, Memory.getFloatPlain(mem + 24));
            assertEquals(10f, Memory.getFloatPlain(mem + 28));
            // MINLOC tie: smaller index wins
            Memory.putIntPlain(mem + 40, 3);
            Memory.putIntPlain(mem + 44, 9);
            Memory.putIntPlain(mem + 48, 3);
            Memory.putIntPlain(mem + 52, 2);
            AccumulateKernel.accumulate(OpCode.MINLOC, BasicType.INT_INT, null, mem + 48, null, mem + 40, 1);
            assertEquals(2, Memory.getIntPlain(mem + 44));
        } finally {
            Memory.free(mem);
        }
    }
}
