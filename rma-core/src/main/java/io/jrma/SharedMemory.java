package io.jrma;

import java.nio.ByteBuffer;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * What {@link Win#sharedQuery} returns: another rank's window memory, which this rank may load and store
 * directly.
 *
 * @param rank      the rank whose memory this is
 * @param size      bytes
 * @param dispUnit  its displacement unit
 * @param address   absolute address of its first byte
 * @param memory    a BytesStore over it
 * @param buffer    a direct ByteBuffer over it (null beyond 2 GiB)
 */
public record SharedMemory(int rank, long size, int dispUnit, long address, BytesStore<?, ?> memory,
        ByteBuffer buffer) {
}
