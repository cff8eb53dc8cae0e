package io.jrma.msg;

/**
 * MPI matching for one context (user point-to-point or collectives): receives posted in order, and messages
 * that arrived before their receive, in arrival order. Messages from one sender enter in the order it sent
 * them and both queues are searched from the oldest entry, so a receive always takes the earliest matching
 * message of a sender and a message the earliest matching receive: MPI's non-overtaking rule.
 *
 * <p>Both queues are intrusive doubly linked lists through the entries' own {@code prev}/{@code next} fields, so
 * posting, matching and removing allocate nothing (a {@code LinkedList} allocated a node per entry and an iterator
 * per search, on every message).
 *
 * <p>Owned by its messenger; touched only under the messenger's lock.
 */
final class Matcher {
    private RecvOp postedHead;
    private RecvOp postedTail;
    private int postedCount;
    private Arrival unexpectedHead;
    private Arrival unexpectedTail;
    private int unexpectedCount;

    /** Removes and returns the oldest posted receive matching a message, or null. */
    RecvOp takePosted(int source, int tag) {
        for (RecvOp r = postedHead; r != null; r = r.next) {
            if (r.matches(source, tag)) {
                unlink(r);
                return r;
            }
        }
        return null;
    }

    /** Removes and returns the oldest unexpected message matching a receive's pattern, or null. */
    Arrival takeUnexpected(int source, int tag) {
        for (Arrival a = unexpectedHead; a != null; a = a.next) {
            if (a.matches(source, tag)) {
                unlink(a);
                return a;
            }
        }
        return null;
    }

    /** The oldest unexpected message matching the pattern, left in place (probe), or null. */
    Arrival peekUnexpected(int source, int tag) {
        for (Arrival a = unexpectedHead; a != null; a = a.next) {
            if (a.matches(source, tag)) {
                return a;
            }
        }
        return null;
    }

    /** Removes the posted receive of {@code req} if it is still waiting for a message; whether it was. */
    boolean removePosted(MsgRequest req) {
        for (RecvOp r = postedHead; r != null; r = r.next) {
            if (r.req == req) {
                unlink(r);
                return true;
            }
        }
        return false;
    }

    void post(RecvOp r) {
        r.next = null;
        r.prev = postedTail;
        if (postedTail == null) {
            postedHead = r;
        } else {
            postedTail.next = r;
        }
        postedTail = r;
        postedCount++;
    }

    void addUnexpected(Arrival a) {
        a.next = null;
        a.prev = unexpectedTail;
        if (unexpectedTail == null) {
            unexpectedHead = a;
        } else {
            unexpectedTail.next = a;
        }
        unexpectedTail = a;
        unexpectedCount++;
    }

    int postedCount() {
        return postedCount;
    }

    int unexpectedCount() {
        return unexpectedCount;
    }

    private void unlink(RecvOp r) {
        if (r.prev == null) {
            postedHead = r.next;
        } else {
            r.prev.next = r.next;
        }
        if (r.next == null) {
            postedTail = r.prev;
        } else {
            r.next.prev = r.prev;
        }
        r.prev = null;
        r.next = null;
        postedCount--;
    }

    private void unlink(Arrival a) {
        if (a.prev == null) {
            unexpectedHead = a.next;
        } else {
            a.prev.next = a.next;
        }
        if (a.next == null) {
            unexpectedTail = a.prev;
        } else {
            a.next.prev = a.prev;
        }
        a.prev = null;
        a.next = null;
        unexpectedCount--;
    }
}
