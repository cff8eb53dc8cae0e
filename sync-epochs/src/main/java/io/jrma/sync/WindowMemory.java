package io.jrma.sync;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.mem.Memory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import io.jrma.shm.ShmSegment;
import io.jrma.spi.transport.RemoteMemory;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * One rank's window memory: an absolute address and a length, with a Chronicle {@link BytesStore} view and,
 * below 2 GiB, a direct {@link ByteBuffer} view. Library-owned memory (allocate flavors) is released on
 * {@link #release()}; user memory (create flavor) never is.
 *
 * <p>Immutable after construction; any thread.
 */
final class WindowMemory {
    static final WindowMemory EMPTY = new WindowMemory(0, 0, null, null, false, null);
    private static final int MAX_BUFFER = Integer.MAX_VALUE - 8192;

    final long address;
    final long length;
    final BytesStore<?, ?> bytes;
    final ByteBuffer buffer;
    private final boolean owned;
    /** The shared segment this memory lives in, unmapped at release (null: private memory). */
    final ShmSegment segment;
    /**
     * The registration of memory a transport allocated ({@link #allocatedBy}), which frees it when the window
     * unregisters it (not {@link #release()}); null otherwise.
     */
    final RemoteMemory.Registration registration;

    private WindowMemory(long address, long length, BytesStore<?, ?> bytes, ByteBuffer buffer, boolean owned,
                         ShmSegment segment) {
        this(address, length, bytes, buffer, owned, segment, null);
    }

    private WindowMemory(long address, long length, BytesStore<?, ?> bytes, ByteBuffer buffer, boolean owned,
                         ShmSegment segment, RemoteMemory.Registration registration) {
        this.address = address;
        this.length = length;
        this.bytes = bytes;
        this.buffer = buffer;
        this.owned = owned;
        this.segment = segment;
        this.registration = registration;
    }

    /**
     * {@code len} bytes at {@code offset} of a shared segment; {@link #release()} unmaps the segment when
     * {@code ownsSegment}.
     */
    static WindowMemory inSegment(ShmSegment seg, long offset, long len, boolean ownsSegment) {
        long a = seg.address() + offset;
        ByteBuffer b = seg.buffer(offset, len);
        BytesStore<?, ?> bs = len == 0 ? null : b != null ? BytesStore.wrap(b) : BytesStore.wrap(a, len);
        return new WindowMemory(a, len, bs, b, false, ownsSegment ? seg : null);
    }

    /**
     * {@code len} bytes at {@code offset} of memory a transport allocated and registered
     * ({@link RemoteMemory#allocate}), freed by unregistering it.
     */
    static WindowMemory allocatedBy(RemoteMemory.Allocation a, long offset, long len) {
        if (len == 0) {
            return new WindowMemory(a.address() + offset, 0, null, null, false, null, a.registration());
        }
        ByteBuffer b = a.buffer() == null ? null : a.buffer().duplicate().clear().position((int) offset)
                .limit((int) (offset + len)).slice().order(ByteOrder.LITTLE_ENDIAN);
        BytesStore<?, ?> bs = b != null ? BytesStore.wrap(b) : BytesStore.wrap(a.address() + offset, len);
        return new WindowMemory(a.address() + offset, len, bs, b, false, null, a.registration());
    }

    /** Library-owned zeroed memory; page aligned when {@code pageAligned}. */
    static WindowMemory allocate(long length, boolean pageAligned) {
        if (length == 0) {
            return EMPTY;
        }
        try {
            if (length <= MAX_BUFFER - 4096) {
                // alignedSlice would round the limit down too: slice from the first page boundary instead
                ByteBuffer raw = ByteBuffer.allocateDirect((int) length + (pageAligned ? 4095 : 0));
                int pad = pageAligned ? (4096 - raw.alignmentOffset(0, 4096)) & 4095 : 0;
                ByteBuffer bb = raw.slice(pad, (int) length).order(ByteOrder.LITTLE_ENDIAN);
                BytesStore<?, ByteBuffer> bs = BytesStore.wrap(bb);
                return new WindowMemory(Buffers.address(bb), length, bs, bb, true, null);
            }
            BytesStore<?, Void> bs = BytesStore.nativeStoreWithFixedCapacity(length + 4096);
            long addr = bs.addressForWrite(bs.start());
            long aligned = (addr + 4095) & ~4095L;
            Memory.fill(aligned, length, (byte) 0);
            return new WindowMemory(aligned, length, bs, null, true, null);
        } catch (OutOfMemoryError e) {
            throw new RmaException(ErrorClass.ERR_NO_MEM,
                    "cannot allocate " + length + " bytes of window memory: " + e.getMessage());
        }
    }

    /** A view of user memory (direct ByteBuffer or native BytesStore). */
    static WindowMemory wrap(Object memory) {
        if (memory == null) {
            return EMPTY;
        }
        if (memory instanceof ByteBuffer) {
            ByteBuffer bb = (ByteBuffer) memory;
            if (!bb.isDirect()) {
                throw new RmaException(ErrorClass.ERR_BUFFER,
                        "window memory must be a direct ByteBuffer (or a native BytesStore); got a heap ByteBuffer");
            }
            ByteBuffer view = bb.duplicate().clear().order(ByteOrder.LITTLE_ENDIAN);
            return new WindowMemory(Buffers.address(bb), bb.capacity(), BytesStore.wrap(view), view, false, null);
        }
        if (memory instanceof BytesStore) {
            BytesStore<?, ?> bs = (BytesStore<?, ?>) memory;
            if (!bs.isDirectMemory()) {
                throw new RmaException(ErrorClass.ERR_BUFFER,
                        "window memory must be native: BytesStore " + bs.getClass().getSimpleName()
                        + " is on the heap");
            }
            long addr = bs.addressForRead(bs.start());
            return new WindowMemory(addr, bs.capacity(), bs, null, false, null);
        }
        throw new RmaException(ErrorClass.ERR_BUFFER,
                "window memory must be a direct ByteBuffer or a native BytesStore, got "
                + memory.getClass().getName());
    }

    /** A sub-range of this memory (shared windows carve per-rank segments out of one allocation). */
    WindowMemory slice(long offset, long len) {
        if (len == 0) {
            return new WindowMemory(address + offset, 0, null, null, false, null);
        }
        ByteBuffer b = buffer == null ? null
                : buffer.duplicate().clear().position((int) offset).limit((int) (offset
                + len)).slice().order(ByteOrder.LITTLE_ENDIAN);
        BytesStore<?, ?> bs = b != null ? BytesStore.wrap(b) : BytesStore.wrap(address + offset, len);
        return new WindowMemory(address + offset, len, bs, b, false, null);
    }

    void release() {
        if (segment != null) {
            segment.close();
        }
        if (owned && bytes != null && bytes.refCount() > 0) {
            bytes.releaseLast();
        }
    }
}
