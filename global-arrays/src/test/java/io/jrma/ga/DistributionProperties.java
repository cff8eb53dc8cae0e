package io.jrma.ga;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** Pure index arithmetic of the distributions: ownership is a partition, locateRegion tiles the patch. */
class DistributionProperties {
    @Property(tries = 300)
    void regionsTilePatchAndAgreeWithOwner(@ForAll @IntRange(min = 1, max = 8) int nranks, @ForAll long seed) {
        Random rnd = new Random(seed);
        int[] dims = TestSupport.randomDims(rnd);
        Distribution dist = TestSupport.randomDist(rnd, dims, nranks);
        DistMap m = dist.resolve(dims, nranks);
        int[][] p = TestSupport.randomPatch(rnd, dims);
        TestSupport.Model cover = new TestSupport.Model(dims);
        List<Region> regions = m.regions(p[0], p[1]);
        for (Region r : regions) {
            Patch q = r.patch();
            int[] shape = q.shape();
            for (int k = 0; k < q.size(); k++) {
                int lin = cover.lin(q.lo(), shape, k);
                cover.v[lin]++;
                int[] idx = unlin(lin, dims);
                assertEquals(r.rank(), m.owner(idx), dist + " owner of " + Arrays.toString(idx));
                for (int d = 0; d < dims.length; d++) { // local indices within the owner's extent
                    int l = m.dm[d].localIndex(idx[d]);
                    assertTrue(l >= 0 && l < m.dm[d].localExtent(m.dm[d].coordOf(idx[d])));
                }
            }
        }
        Patch whole = new Patch(p[0], p[1]);
        for (int i = 0; i < cover.v.length; i++) {
            assertEquals(whole.contains(unlin(i, dims)) ? 1.0 : 0.0, cover.v[i], dist + " coverage of element " + i);
        }
        long owned = 0; // local extents add up to the array
        for (int r = 0; r < nranks; r++) {
            owned += TestSupport.size(m.localDims(r));
        }
        assertEquals(TestSupport.size(dims), owned, dist + " local sizes");
    }

    static int[] unlin(int lin, int[] dims) {
        int[] idx = new int[dims.length];
        for (int d = dims.length - 1; d >= 0; d--) {
            idx[d] = lin % dims[d];
            lin /= dims[d];
        }
        return idx;
    }
}
