package io.jrma.core.op;

import io.jrma.core.dt.BasicType;
import io.jrma.core.op.KernelHarness.Mode;
import io.jrma.core.op.KernelHarness.OpType;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** Random (op, type, data, alignment) cases of every kernel against {@link ReferenceModel}. */
class AccumulateKernelProperties {

    @Provide
    Arbitrary<OpType> validPairs() {
        return Arbitraries.of(KernelHarness.pairs(true));
    }

    @Provide
    Arbitrary<OpType> invalidPairs() {
        return Arbitraries.of(KernelHarness.pairs(false));
    }

    @Provide
    Arbitrary<BasicType> casTypes() {
        return Arbitraries.of(BasicType.class).filter(
            t -> t.kind() != BasicType.Kind.COMPLEX && t.kind() != BasicType.Kind.PAIR);
    }

    @Property(tries = 1500)
    void accumulateMatchesModel(@ForAll("validPairs") OpType p, @ForAll @IntRange(max = 24) int count,
                                @ForAll @IntRange(max = 7) int dstMis, @ForAll @IntRange(max = 7) int srcMis,
                                @ForAll long seed, @ForAll boolean heapDst) {
        KernelHarness.check(Mode.ACCUMULATE, p.op(), p.t(), count, dstMis, srcMis, seed, heapDst);
    }

    @Property(tries = 1500)
    void getAccumulateFetchesOldValuesAndMatchesModel(@ForAll("validPairs") OpType p,
                                                      @ForAll @IntRange(max = 24) int count,
                                                      @ForAll @IntRange(max = 7) int dstMis,
                                                      @ForAll @IntRange(max = 7) int srcMis,
                                                      @ForAll long seed, @ForAll boolean heapDst) {
        KernelHarness.check(Mode.GET_ACCUMULATE, p.op(), p.t(), count, dstMis, srcMis, seed, heapDst);
    }

    @Property(tries = 1500)
    void reduceLocalMatchesModel(@ForAll("validPairs") OpType p, @ForAll @IntRange(max = 24) int count,
                                 @ForAll @IntRange(max = 7) int dstMis, @ForAll @IntRange(max = 7) int srcMis,
                                 @ForAll long seed, @ForAll boolean heapDst) {
        KernelHarness.check(Mode.REDUCE_LOCAL, p.op(), p.t(), count, dstMis, srcMis, seed, heapDst);
    }

    @Property
    void invalidPairsThrowErrOp(@ForAll("invalidPairs") OpType p) {
        KernelHarness.checkInvalid(p.op(), p.t());
    }

    @Property(tries = 1500)
    void compareAndSwapMatchesAndMismatches(@ForAll("casTypes") BasicType t, @ForAll @IntRange(max = 7) int mis,
                                            @ForAll long seed, @ForAll boolean match, @ForAll boolean heapDst) {
        KernelHarness.checkCas(t, mis, seed, match, heapDst);
    }
}
