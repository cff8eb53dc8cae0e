package io.jrma.transport.disni;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.nio.ByteOrder;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Writes one verbs send work request ({@code struct ibv_send_wr}) followed by its one scatter/gather element
 * ({@code struct ibv_sge}) into native memory, exactly as libibverbs lays them out on 64-bit Linux, so that
 * {@code ibv_post_send} can take the address as its work-request list. Offsets checked against
 * {@code <infiniband/verbs.h>} of rdma-core 44 (Debian libibverbs-dev) with {@code offsetof}:
 *
 * <pre>
 *   ibv_send_wr (128 bytes)                         ibv_sge (16 bytes), right after it
 *    0 wr_id        u64                               0 addr    u64
 *    8 next         pointer (0: the only request)     8 length  u32
 *   16 sg_list      pointer (to the sge below)       12 lkey    u32
 *   24 num_sge      int (1)
 *   28 opcode       enum ibv_wr_opcode
 *   32 send_flags   unsigned (IBV_SEND_SIGNALED)
 *   36 imm_data     u32 (0)
 *   40 wr.rdma.remote_addr u64 | wr.atomic.remote_addr u64
 *   48 wr.rdma.rkey        u32 | wr.atomic.compare_add u64
 *   56                         | wr.atomic.swap        u64
 *   64                         | wr.atomic.rkey        u32
 *   72 .. 127 the other unions (zero)
 * </pre>
 *
 * <p>Why not DiSNI's own serializer: the released jar (2.1, {@code NatIbvSendWR.writeBack}) writes every request with
 * the {@code wr.rdma} member only (remote address at 40, rkey at 48) and never reads {@code IbvSendWR.getAtomic()}: an
 * atomic request it posts carries the rkey where the HCA reads {@code compare_add}, and garbage as {@code swap} and
 * as the atomic rkey. Writing all requests here (RDMA write and read too, one code path) puts each field where the
 * header says and leaves DiSNI only the post itself. Byte order: the machine's, as the header's integers are.
 *
 * <p>Threads: stateless; the caller owns the memory written.
 */
final class SendWorkRequest {
    static final int WR_ID_OFFSET = 0;
    static final int NEXT_OFFSET = 8;
    static final int SG_LIST_OFFSET = 16;
    static final int NUM_SGE_OFFSET = 24;
    static final int OPCODE_OFFSET = 28;
    static final int SEND_FLAGS_OFFSET = 32;
    static final int IMM_DATA_OFFSET = 36;
    static final int REMOTE_ADDR_OFFSET = 40;
    static final int RDMA_RKEY_OFFSET = 48;
    static final int COMPARE_ADD_OFFSET = 48;
    static final int SWAP_OFFSET = 56;
    static final int ATOMIC_RKEY_OFFSET = 64;
    /** {@code sizeof(struct ibv_send_wr)}. */
    static final int WR_SIZE = 128;
    static final int SGE_ADDR_OFFSET = 0;
    static final int SGE_LENGTH_OFFSET = 8;
    static final int SGE_LKEY_OFFSET = 12;
    /** {@code sizeof(struct ibv_sge)}. */
    static final int SGE_SIZE = 16;
    /** Bytes one request with its element takes. */
    static final int ENCODED_LENGTH = WR_SIZE + SGE_SIZE;

    /** {@code enum ibv_wr_opcode} values. */
    static final int IBV_WR_RDMA_WRITE = 0;
    static final int IBV_WR_RDMA_READ = 4;
    static final int IBV_WR_ATOMIC_CMP_AND_SWP = 5;
    static final int IBV_WR_ATOMIC_FETCH_AND_ADD = 6;
    /** {@code IBV_SEND_SIGNALED}: the request makes a completion. */
    static final int IBV_SEND_SIGNALED = 2;
    /** Verbs atomics work on 8 bytes at 8-byte aligned addresses. */
    static final int ATOMIC_BYTES = 8;
    /** The largest length one scatter/gather element carries (its field is a u32; keep it positive as an int). */
    static final long MAX_SGE_LENGTH = Integer.MAX_VALUE;

    static {
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            // the layouts above are checked on x86-64 and aarch64 Linux only
            throw new ExceptionInInitializerError("verbs work requests are laid out for little-endian machines");
        }
    }

    private SendWorkRequest() {
    }

    /**
     * An RDMA write ({@link #IBV_WR_RDMA_WRITE}) or read ({@link #IBV_WR_RDMA_READ}) of {@code length} bytes between
     * local {@code local} (registered with {@code lkey}) and {@code remote} (rkey {@code rkey}), signaled.
     *
     * @param b native memory of at least {@link #ENCODED_LENGTH} bytes, wrapped at its start
     */
    static void rdma(UnsafeBuffer b, int opcode, long wrId, long local, long length, int lkey, long remote, int rkey) {
        if (opcode != IBV_WR_RDMA_WRITE && opcode != IBV_WR_RDMA_READ) {
            throw new IllegalArgumentException("opcode " + opcode + " is not an RDMA write or read");
        }
        if (length <= 0 || length > MAX_SGE_LENGTH) {
            throw new RmaException(ErrorClass.ERR_ARG, "one RDMA request carries 1.." + MAX_SGE_LENGTH + " bytes, not "
                    + length);
        }
        header(b, opcode, wrId, local, (int) length, lkey, remote);
        b.putInt(RDMA_RKEY_OFFSET, rkey);
    }

    /**
     * An atomic fetch-add ({@link #IBV_WR_ATOMIC_FETCH_AND_ADD}: {@code compareAdd} is the addend, {@code swap}
     * unused) or compare-swap ({@link #IBV_WR_ATOMIC_CMP_AND_SWP}) on the 8 bytes at {@code remote}, signaled; the old
     * value lands in the 8 bytes at local {@code result} (registered with {@code lkey}).
     */
    static void atomic(UnsafeBuffer b, int opcode, long wrId, long result, int lkey, long remote, int rkey,
            long compareAdd, long swap) {
        if (opcode != IBV_WR_ATOMIC_FETCH_AND_ADD && opcode != IBV_WR_ATOMIC_CMP_AND_SWP) {
            throw new IllegalArgumentException("opcode " + opcode + " is not a verbs atomic");
        }
        if ((remote & (ATOMIC_BYTES - 1)) != 0) {
            throw new RmaException(ErrorClass.ERR_ARG, "a verbs atomic needs an 8-byte aligned target, not 0x"
                    + Long.toHexString(remote));
        }
        header(b, opcode, wrId, result, ATOMIC_BYTES, lkey, remote);
        b.putLong(COMPARE_ADD_OFFSET, compareAdd);
        b.putLong(SWAP_OFFSET, opcode == IBV_WR_ATOMIC_CMP_AND_SWP ? swap : 0);
        b.putInt(ATOMIC_RKEY_OFFSET, rkey);
    }

    private static void header(UnsafeBuffer b, int opcode, long wrId, long local, int length, int lkey, long remote) {
        if (b.capacity() < ENCODED_LENGTH) {
            throw new IllegalArgumentException("a work request needs " + ENCODED_LENGTH + " bytes, not "
                    + b.capacity());
        }
        b.setMemory(0, ENCODED_LENGTH, (byte) 0);
        b.putLong(WR_ID_OFFSET, wrId);
        b.putLong(NEXT_OFFSET, 0);
        b.putLong(SG_LIST_OFFSET, b.addressOffset() + WR_SIZE);
        b.putInt(NUM_SGE_OFFSET, 1);
        b.putInt(OPCODE_OFFSET, opcode);
        b.putInt(SEND_FLAGS_OFFSET, IBV_SEND_SIGNALED);
        b.putInt(IMM_DATA_OFFSET, 0);
        b.putLong(REMOTE_ADDR_OFFSET, remote);
        b.putLong(WR_SIZE + SGE_ADDR_OFFSET, local);
        b.putInt(WR_SIZE + SGE_LENGTH_OFFSET, length);
        b.putInt(WR_SIZE + SGE_LKEY_OFFSET, lkey);
    }
}
