package io.jrma.transport.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.impl.NatIbvSendWR;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.LinkedList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Why {@link SendWorkRequest} exists: DiSNI 2.1's own serializer ({@code NatIbvSendWR.writeBack}, pure Java, so it
 * runs without libdisni) given a compare-swap request writes the {@code wr.rdma} member where verbs reads
 * {@code wr.atomic}: the rkey lands on {@code compare_add}, and {@code swap} and the atomic rkey are never written.
 * Should a DiSNI release fix it, this test fails and tells us the workaround may go.
 */
class DisniSerializerBugTest {
    private static final long REMOTE = 0x7f99_0000_2000L;
    private static final int RKEY = 0xA0B0_C0D0;
    private static final long COMPARE = 0x0123_4567_89AB_CDEFL;
    private static final long SWAP = 0xFEDC_BA98_7654_3210L;
    private static final byte UNTOUCHED = (byte) 0xEE;
    private static final long UNTOUCHED_LONG = 0xEEEE_EEEE_EEEE_EEEEL;

    @Test
    void disni21WritesAtomicsWithTheRdmaLayout() {
        IbvSendWR wr = new IbvSendWR();
        wr.setOpcode(IbvSendWR.IBV_WR_ATOMIC_CMP_AND_SWP);
        wr.setSg_list(new LinkedList<>(List.of(new IbvSge())));
        wr.setNum_sge(1);
        wr.getAtomic().setRemote_addr(REMOTE);
        wr.getAtomic().setCompare_add(COMPARE);
        wr.getAtomic().setSwap(SWAP);
        wr.getAtomic().setRkey(RKEY);
        // the fields a caller must also fill for DiSNI to send the address and key at all
        wr.getRdma().setRemote_addr(REMOTE);
        wr.getRdma().setRkey(RKEY);
        NatIbvSendWR nat = new NatIbvSendWR(null, new NatIbvSendWR.NatRdma(wr.getRdma(), null), wr, wr.getSg_list());
        ByteBuffer b = ByteBuffer.allocate(SendWorkRequest.WR_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < b.capacity(); i++) {
            b.put(i, UNTOUCHED);
        }
        nat.writeBack(b);

        assertEquals(REMOTE, b.getLong(SendWorkRequest.REMOTE_ADDR_OFFSET), "the remote address is right");
        long compareAdd = b.getLong(SendWorkRequest.COMPARE_ADD_OFFSET);
        assertNotEquals(COMPARE, compareAdd);
        assertEquals(RKEY, (int) compareAdd, "the rkey sits where the adapter reads compare_add");
        assertEquals(UNTOUCHED_LONG, b.getLong(SendWorkRequest.SWAP_OFFSET), "swap is never written");
        assertEquals((int) UNTOUCHED_LONG, b.getInt(SendWorkRequest.ATOMIC_RKEY_OFFSET), "nor the atomic rkey");
        assertEquals(72, NatIbvSendWR.CSIZE, "DiSNI 2.1 takes a request for 72 bytes; rdma-core 44's is 128");
    }
}
