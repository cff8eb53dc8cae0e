package io.jrma.transport.disni;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The bookkeeping of registered memory on both sides, without any device: the regions this JVM registered (so a
 * put's or get's local buffer finds its {@code lkey}, and a window's free deregisters its region), and the peers'
 * regions this JVM attached (so an operation's target range is checked against the key before a work request
 * carries it). {@code M} is what the device side keeps per local region (DiSNI's {@code IbvMr}).
 *
 * <p>Refusals: a target range outside the attached region is ERR_RMA_RANGE naming both; an unknown handle is
 * ERR_ARG. Threads: any; every method is synchronized (registrations happen at window creation, attach and free,
 * lookups once per operation).
 *
 * @param <M> the device's handle of a local registration
 */
final class Registrations<M> {
    /** A region of this JVM registered with the device. */
    record Local<M>(long id, long address, long length, int lkey, int rkey, M region) {
        boolean covers(long from, long bytes) {
            return bytes >= 0 && from >= address && from - address <= length - bytes;
        }
    }

    /** A peer's region this JVM attached: its world rank and key. */
    record Remote(int worldRank, RemoteKey key) {
    }

    private final TreeMap<Long, Local<M>> localByAddress = new TreeMap<>();
    private final Map<Long, Local<M>> localById = new HashMap<>();
    private final Map<Long, Remote> remoteByHandle = new HashMap<>();
    private long nextId = 1;

    /** Records a registration of {@code [address, address + length)}; returns it (its id is never 0). */
    synchronized Local<M> addLocal(long address, long length, int lkey, int rkey, M region) {
        if (length <= 0) {
            throw new RmaException(ErrorClass.ERR_ARG, "cannot register " + length + " bytes");
        }
        Local<M> l = new Local<>(nextId++, address, length, lkey, rkey, region);
        localById.put(l.id(), l);
        localByAddress.put(address, l);
        return l;
    }

    /** Forgets the registration with id {@code id} and returns it (for the device to deregister); ERR_ARG if none. */
    synchronized Local<M> removeLocal(long id) {
        Local<M> l = localById.remove(id);
        if (l == null) {
            throw new RmaException(ErrorClass.ERR_ARG, "no DiSNI registration has id " + id);
        }
        localByAddress.remove(l.address(), l);
        // another registration starting at the same address (registered twice) takes its place in the lookup
        for (Local<M> other : localById.values()) {
            if (other.address() == l.address()) {
                localByAddress.putIfAbsent(other.address(), other);
            }
        }
        return l;
    }

    /** The local registration holding all of {@code [address, address + length)}, or null. */
    synchronized Local<M> findLocal(long address, long length) {
        Map.Entry<Long, Local<M>> e = localByAddress.floorEntry(address);
        while (e != null) {
            if (e.getValue().covers(address, length)) {
                return e.getValue();
            }
            e = localByAddress.lowerEntry(e.getKey());
        }
        return null;
    }

    /** The number of local registrations. */
    synchronized int localCount() {
        return localById.size();
    }

    /** Records that {@code key} of world rank {@code worldRank} was attached; returns its handle (never 0). */
    synchronized long attach(int worldRank, RemoteKey key) {
        long h = nextId++;
        remoteByHandle.put(h, new Remote(worldRank, key));
        return h;
    }

    /** Forgets an attached key; ERR_ARG when {@code handle} is not one. */
    synchronized void detach(long handle) {
        if (remoteByHandle.remove(handle) == null) {
            throw new RmaException(ErrorClass.ERR_ARG, "no attached DiSNI key has handle " + handle);
        }
    }

    /** The number of attached keys. */
    synchronized int remoteCount() {
        return remoteByHandle.size();
    }

    /**
     * The key of {@code handle} after checking that it belongs to world rank {@code worldRank} and holds
     * {@code [remote, remote + length)}.
     *
     * @throws RmaException ERR_ARG for an unknown handle or another rank's, ERR_RMA_RANGE for a range outside it
     */
    synchronized RemoteKey target(int worldRank, long handle, long remote, long length) {
        Remote r = remoteByHandle.get(handle);
        if (r == null || r.worldRank() != worldRank) {
            throw new RmaException(ErrorClass.ERR_ARG, "handle " + handle + " is no DiSNI key attached for world rank "
                    + worldRank);
        }
        RemoteKey k = r.key();
        if (!k.covers(remote, length)) {
            throw new RmaException(ErrorClass.ERR_RMA_RANGE, "[0x" + Long.toHexString(remote) + ", +" + length
                    + ") is outside world rank " + worldRank + "'s registered region [0x"
                    + Long.toHexString(k.address()) + ", +" + k.length() + ")");
        }
        return k;
    }
}
