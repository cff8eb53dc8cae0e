package io.jrma.msg;

import java.util.Iterator;
import java.util.LinkedList;

/**
 * MPI matching for one context (user point-to-point or collectives): receives posted in order, and messages
 * that arrived before their receive, in arrival order. Messages from one sender enter in the order it sent
 * them and both queues are searched from the oldest entry, so a receive always takes the earliest matching
 * message of a sender and a message the earliest matching receive: MPI's non-overtaking rule.
 *
 * <p>Owned by its messenger; touched only under the messenger's lock.
 */
final class Matcher {
    private final LinkedList<RecvOp> posted = new LinkedList<>();
    private final LinkedList<Arrival> unexpected = new LinkedList<>();

    /** Removes and returns the oldest posted receive matching a message, or null. */
    RecvOp takePosted(int source, int tag) {
        for (Iterator<RecvOp> it = posted.iterator(); it.hasNext();) {
            RecvOp r = it.next();
            if (r.matches(source, tag)) {
                it.remove();
                return r;
            }
        }
        return null;
    }

    /** Removes and returns the oldest unexpected message matching a receive's pattern, or null. */
    Arrival takeUnexpected(int source, int tag) {
        for (Iterator<Arrival> it = unexpected.iterator(); it.hasNext();) {
            Arrival a = it.next();
            if (a.matches(source, tag)) {
                it.remove();
                return a;
            }
        }
        return null;
    }

    /** The oldest unexpected message matching the pattern, left in place (probe), or null. */
    Arrival peekUnexpected(int source, int tag) {
        for (Arrival a : unexpected) {
            if (a.matches(source, tag)) {
                return a;
            }
        }
        return null;
    }

    /** Removes the posted receive of {@code req} if it is still waiting for a message; whether it was. */
    boolean removePosted(MsgRequest req) {
        for (Iterator<RecvOp> it = posted.iterator(); it.hasNext();) {
            if (it.next().req == req) {
                it.remove();
                return true;
            }
        }
        return false;
    }

    void post(RecvOp r) {
        posted.add(r);
    }

    void addUnexpected(Arrival a) {
        unexpected.add(a);
    }

    int postedCount() {
        return posted.size();
    }

    int unexpectedCount() {
        return unexpected.size();
    }
}
