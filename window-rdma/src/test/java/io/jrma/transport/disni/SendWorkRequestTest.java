package io.jrma.transport.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The exact bytes of the work requests, read back at the offsets of {@code <infiniband/verbs.h>} (rdma-core 44,
 * printed with {@code offsetof} on x86-64 Linux; written out here as numbers so a change of the constants in
 * {@link SendWorkRequest} cannot pass unnoticed). The atomic fields are where DiSNI 2.1's serializer does not put them.
 */
class SendWorkRequestTest {
    // struct ibv_send_wr, from verbs.h
    private static final int H_WR_ID = 0;
    private static final int H_NEXT = 8;
    private static final int H_SG_LIST = 16;
    private static final int H_NUM_SGE = 24;
    private static final int H_OPCODE = 28;
    private static final int H_SEND_FLAGS = 32;
    private static final int H_IMM_DATA = 36;
    private static final int H_REMOTE_ADDR = 40;
    private static final int H_RDMA_RKEY = 48;
    private static final int H_COMPARE_ADD = 48;
    private static final int H_SWAP = 56;
    private static final int H_ATOMIC_RKEY = 64;
    private static final int H_WR_SIZE = 128;
    // struct ibv_sge
    private static final int H_SGE_ADDR = 0;
    private static final int H_SGE_LENGTH = 8;
    private static final int H_SGE_LKEY = 12;
    // enum ibv_wr_opcode, enum ibv_send_flags
    private static final int H_RDMA_WRITE = 0;
    private static final int H_RDMA_READ = 4;
    private static final int H_CMP_AND_SWP = 5;
    private static final int H_FETCH_AND_ADD = 6;
    private static final int H_SIGNALED = 2;

    private static final long WR_ID = 0x1122_3344_5566_7788L;
    private static final long LOCAL = 0x7f00_0000_1000L;
    private static final long REMOTE = 0x7f99_0000_2000L;
    private static final int LKEY = 0x0102_0304;
    private static final int RKEY = 0xA0B0_C0D0;
    private static final long COMPARE = 0x0123_4567_89AB_CDEFL;
    private static final long SWAP = 0xFEDC_BA98_7654_3210L;
    private static final byte DIRT = (byte) 0x5A;

    private ByteBuffer memory;
    private ByteBuffer le;
    private UnsafeBuffer wr;

    @BeforeEach
    void dirtyMemory() {
        memory = ByteBuffer.allocateDirect(SendWorkRequest.ENCODED_LENGTH);
        le = memory.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        wr = new UnsafeBuffer(memory);
        for (int i = 0; i < memory.capacity(); i++) {
            memory.put(i, DIRT); // a request must not inherit the previous one's bytes
        }
    }

    @Test
    void theLayoutConstantsAreTheHeaders() {
        assertEquals(H_WR_SIZE + 16, SendWorkRequest.ENCODED_LENGTH);
        assertEquals(H_COMPARE_ADD, SendWorkRequest.COMPARE_ADD_OFFSET);
        assertEquals(H_SWAP, SendWorkRequest.SWAP_OFFSET);
        assertEquals(H_ATOMIC_RKEY, SendWorkRequest.ATOMIC_RKEY_OFFSET);
    }

    @Test
    void anRdmaWriteIsLaidOutAsVerbsReadsIt() {
        SendWorkRequest.rdma(wr, SendWorkRequest.IBV_WR_RDMA_WRITE, WR_ID, LOCAL, 4096, LKEY, REMOTE, RKEY);
        assertHeader(H_RDMA_WRITE, LOCAL, 4096);
        assertEquals(REMOTE, le.getLong(H_REMOTE_ADDR));
        assertEquals(RKEY, le.getInt(H_RDMA_RKEY));
        assertZero(H_RDMA_RKEY + Integer.BYTES, H_WR_SIZE);
    }

    @Test
    void anRdmaReadHasItsOpcode() {
        SendWorkRequest.rdma(wr, SendWorkRequest.IBV_WR_RDMA_READ, WR_ID, LOCAL, 8, LKEY, REMOTE, RKEY);
        assertHeader(H_RDMA_READ, LOCAL, 8);
        assertEquals(RKEY, le.getInt(H_RDMA_RKEY));
    }

    @Test
    void aCompareSwapCarriesCompareSwapAndRkeyAtTheAtomicOffsets() {
        SendWorkRequest.atomic(wr, SendWorkRequest.IBV_WR_ATOMIC_CMP_AND_SWP, WR_ID, LOCAL, LKEY, REMOTE, RKEY,
                COMPARE, SWAP);
        assertHeader(H_CMP_AND_SWP, LOCAL, Long.BYTES);
        assertEquals(REMOTE, le.getLong(H_REMOTE_ADDR));
        assertEquals(COMPARE, le.getLong(H_COMPARE_ADD), "DiSNI 2.1 puts the rkey here");
        assertEquals(SWAP, le.getLong(H_SWAP));
        assertEquals(RKEY, le.getInt(H_ATOMIC_RKEY));
        assertZero(H_ATOMIC_RKEY + Integer.BYTES, H_WR_SIZE);
    }

    @Test
    void aFetchAddCarriesTheAddendAsCompareAddAndNoSwap() {
        long addend = -3;
        SendWorkRequest.atomic(wr, SendWorkRequest.IBV_WR_ATOMIC_FETCH_AND_ADD, WR_ID, LOCAL, LKEY, REMOTE, RKEY,
                addend, SWAP);
        assertHeader(H_FETCH_AND_ADD, LOCAL, Long.BYTES);
        assertEquals(addend, le.getLong(H_COMPARE_ADD));
        assertEquals(0, le.getLong(H_SWAP));
        assertEquals(RKEY, le.getInt(H_ATOMIC_RKEY));
    }

    @Test
    void misuseIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> SendWorkRequest.rdma(wr,
                SendWorkRequest.IBV_WR_ATOMIC_FETCH_AND_ADD, WR_ID, LOCAL, 8, LKEY, REMOTE, RKEY));
        assertThrows(IllegalArgumentException.class, () -> SendWorkRequest.atomic(wr,
                SendWorkRequest.IBV_WR_RDMA_WRITE, WR_ID, LOCAL, LKEY, REMOTE, RKEY, 0, 0));
        RmaException unaligned = assertThrows(RmaException.class, () -> SendWorkRequest.atomic(wr,
                SendWorkRequest.IBV_WR_ATOMIC_CMP_AND_SWP, WR_ID, LOCAL, LKEY, REMOTE + 4, RKEY, 0, 0));
        assertEquals(ErrorClass.ERR_ARG, unaligned.errorClass());
        assertThrows(RmaException.class, () -> SendWorkRequest.rdma(wr, SendWorkRequest.IBV_WR_RDMA_WRITE, WR_ID,
                LOCAL, 0, LKEY, REMOTE, RKEY));
        assertThrows(RmaException.class, () -> SendWorkRequest.rdma(wr, SendWorkRequest.IBV_WR_RDMA_WRITE, WR_ID,
                LOCAL, 1L << 32, LKEY, REMOTE, RKEY));
        UnsafeBuffer small = new UnsafeBuffer(ByteBuffer.allocateDirect(H_WR_SIZE));
        assertThrows(IllegalArgumentException.class, () -> SendWorkRequest.rdma(small,
                SendWorkRequest.IBV_WR_RDMA_WRITE, WR_ID, LOCAL, 8, LKEY, REMOTE, RKEY));
    }

    /** The fields every request shares, its one sge right after it, pointed to by address. */
    private void assertHeader(int opcode, long local, int length) {
        assertEquals(WR_ID, le.getLong(H_WR_ID));
        assertEquals(0, le.getLong(H_NEXT), "the only request of its list");
        assertEquals(wr.addressOffset() + H_WR_SIZE, le.getLong(H_SG_LIST), "the sge's native address");
        assertEquals(1, le.getInt(H_NUM_SGE));
        assertEquals(opcode, le.getInt(H_OPCODE));
        assertEquals(H_SIGNALED, le.getInt(H_SEND_FLAGS));
        assertEquals(0, le.getInt(H_IMM_DATA));
        assertEquals(local, le.getLong(H_WR_SIZE + H_SGE_ADDR));
        assertEquals(length, le.getInt(H_WR_SIZE + H_SGE_LENGTH));
        assertEquals(LKEY, le.getInt(H_WR_SIZE + H_SGE_LKEY));
    }

    private void assertZero(int from, int to) {
        for (int i = from; i < to; i++) {
            assertEquals(0, memory.get(i), "byte " + i);
        }
    }
}
