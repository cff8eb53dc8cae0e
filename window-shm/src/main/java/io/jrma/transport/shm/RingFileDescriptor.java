package io.jrma.transport.shm;

import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * Layout of one ring file, {@code <dir>/jrma-<creator pid>-ring-<job tag>-<sender JVM>to<receiver JVM>}
 * (little-endian). The receiving JVM creates the file; the header is written before the file's name is told
 * to the sender (over the control plane), so the sender reads it complete.
 *
 * <pre>
 *   0               1               2               3
 *   0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7
 *  +---------------------------------------------------------------+
 *  |                  magic "JRMARING" (long)                      |     0
 *  +---------------------------------------------------------------+
 *  |                  version                                      |     8
 *  +---------------------------------------------------------------+
 *  |                  ring capacity in bytes (power of two)        |    12
 *  +---------------------------------------------------------------+
 *  |                  creator pid (long)                           |    16
 *  +---------------------------------------------------------------+
 *  |                  sender JVM index                             |    24
 *  +---------------------------------------------------------------+
 *  |                  receiver JVM index                           |    28
 *  +---------------------------------------------------------------+
 *  |                  (reserved, 0)                                |    32
 *  +---------------------------------------------------------------+
 *  |  receiver asleep: 1 while the receiver's progress thread may  |    64  (own cache line)
 *  |  sleep in its selector; a sender that finds 1 swaps in 0 and  |
 *  |  rings the doorbell (a WAKE frame on the TCP connection)      |
 *  +---------------------------------------------------------------+
 *  |                  (reserved, 0)                                |    68
 *  +---------------------------------------------------------------+
 *  |  applied position (long): the receiver has applied every      |   128  (own cache line)
 *  |  record before it whose ack it elided (F_ACK_BY_RING); the    |
 *  |  sender's flush waits for it instead of an ACK packet         |
 *  +---------------------------------------------------------------+
 *  |                  (reserved, 0)                                |   136
 *  +---------------------------------------------------------------+
 *  |  Agrona OneToOneRingBuffer: capacity bytes of records, then   |  4096  (page aligned)
 *  |  its trailer (RingBufferDescriptor.TRAILER_LENGTH)            |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * A record of the ring ({@link #MSG_PACKETS}) holds whole wire packets back to back, in delivery order; a
 * packet larger than the ring's largest record travels as consecutive {@link #MSG_PART} records (the first
 * starts with the packet header, whose length field says how many bytes follow in total). A
 * {@link #MSG_CONTROL} record carries one control-plane message between JVMs of the host.
 */
public final class RingFileDescriptor {
    public static final long MAGIC = 0x474E4952414D524AL; // "JRMARING" read as a little-endian long
    public static final int VERSION = 2;
    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 8;
    public static final int CAPACITY_OFFSET = 12;
    public static final int CREATOR_PID_OFFSET = 16;
    public static final int SENDER_OFFSET = 24;
    public static final int RECEIVER_OFFSET = 28;
    public static final int ASLEEP_OFFSET = 64;
    public static final int APPLIED_OFFSET = 128;
    public static final int HEADER_LENGTH = 4096;

    /** Record type: whole packets. */
    public static final int MSG_PACKETS = 1;
    /** Record type: a piece of one packet too large for a record. */
    public static final int MSG_PART = 2;
    /** Record type: a control-plane message (as the TCP transport's CTRL frame body), whole in one record. */
    public static final int MSG_CONTROL = 3;

    private RingFileDescriptor() {
    }

    /** Size of the file for a ring of {@code capacity} bytes. */
    public static long fileLength(int capacity) {
        return HEADER_LENGTH + (long) capacity + RingBufferDescriptor.TRAILER_LENGTH;
    }
}
