package io.jrma.transport.disni;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32;

/**
 * What a peer needs to reach a registered memory region with verbs: its address, its length and the region's remote
 * key ({@code rkey} of {@code ibv_reg_mr}). This is the key {@link DisniTransport#register} returns and the window
 * creation exchange carries to the peers, who {@link #decode} it in {@link DisniTransport#attach}.
 *
 * <pre>
 *   0        1        2        3        4
 *   +--------+--------+--------+--------+
 *   | magic 'D' 'K'   | version| 0      |  0
 *   +--------+--------+--------+--------+
 *   | rkey (u32)                        |  4
 *   +-----------------------------------+
 *   | address (u64)                     |  8
 *   |                                   |
 *   +-----------------------------------+
 *   | length (u64, bytes)               | 16
 *   |                                   |
 *   +-----------------------------------+
 *   | CRC-32 of bytes 0..23             | 24
 *   +-----------------------------------+  28
 * </pre>
 * Big-endian. A key of another length, magic or version, a checksum that does not match, a length that is not
 * positive or a region that wraps around the address space is refused with ERR_ARG: a peer never touches memory
 * through a key it could not read exactly.
 *
 * @param address the region's first byte in the owner's address space
 * @param length the region's length in bytes
 * @param rkey the region's remote key
 */
record RemoteKey(long address, long length, int rkey) {
    static final short MAGIC = 0x444B;
    static final byte VERSION = 1;
    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 2;
    static final int RKEY_OFFSET = 4;
    static final int ADDRESS_OFFSET = 8;
    static final int LENGTH_OFFSET = 16;
    static final int CRC_OFFSET = 24;
    static final int ENCODED_LENGTH = 28;

    /** The key's bytes on the wire. */
    byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(ENCODED_LENGTH).order(ByteOrder.BIG_ENDIAN);
        b.putShort(MAGIC_OFFSET, MAGIC).put(VERSION_OFFSET, VERSION).putInt(RKEY_OFFSET, rkey)
                .putLong(ADDRESS_OFFSET, address).putLong(LENGTH_OFFSET, length);
        b.putInt(CRC_OFFSET, crc(b.array()));
        return b.array();
    }

    /** Reads a key {@link #encode} wrote; ERR_ARG, saying what is wrong, when {@code bytes} is not one. */
    static RemoteKey decode(byte[] bytes) {
        if (bytes == null || bytes.length != ENCODED_LENGTH) {
            throw refused("its length is " + (bytes == null ? "null" : bytes.length + " bytes") + ", not "
                    + ENCODED_LENGTH);
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
        if (b.getShort(MAGIC_OFFSET) != MAGIC) {
            throw refused(String.format("its magic is 0x%04x, not 0x%04x", b.getShort(MAGIC_OFFSET), MAGIC));
        }
        if (b.get(VERSION_OFFSET) != VERSION) {
            throw refused("its version is " + b.get(VERSION_OFFSET) + ", this JVM reads version " + VERSION);
        }
        int crc = crc(bytes);
        if (b.getInt(CRC_OFFSET) != crc) {
            throw refused(String.format("its checksum is 0x%08x, its bytes give 0x%08x", b.getInt(CRC_OFFSET), crc));
        }
        RemoteKey k = new RemoteKey(b.getLong(ADDRESS_OFFSET), b.getLong(LENGTH_OFFSET), b.getInt(RKEY_OFFSET));
        if (k.length <= 0 || Long.compareUnsigned(k.address + k.length - 1, k.address) < 0) {
            throw refused("its region [0x" + Long.toHexString(k.address) + ", +" + k.length + ") is not a region");
        }
        return k;
    }

    /** Whether {@code [remote, remote + length)} lies inside this region. */
    boolean covers(long remote, long length) {
        return length >= 0 && remote >= address && remote - address <= this.length - length;
    }

    private static int crc(byte[] bytes) {
        CRC32 c = new CRC32();
        c.update(bytes, 0, CRC_OFFSET);
        return (int) c.getValue();
    }

    private static RmaException refused(String why) {
        return new RmaException(ErrorClass.ERR_ARG, "a DiSNI remote key was refused: " + why);
    }
}
