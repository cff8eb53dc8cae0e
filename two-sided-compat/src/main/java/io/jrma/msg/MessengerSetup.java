package io.jrma.msg;

import io.jrma.Comm;
import io.jrma.ErrorClass;
import io.jrma.Info;
import io.jrma.Jrma;
import io.jrma.RmaException;
import io.jrma.Win;

/**
 * The making of a {@link Messenger}: its settings (info keys and run-time parameters) and its two windows (the inbox,
 * an allocate window, and the exposure window of rendezvous data, a dynamic one), each in a
 * {@code lockAll(MODE_NOCHECK)} epoch for the messenger's lifetime. Static, called collectively by each rank's
 * thread.
 */
final class MessengerSetup {
    private MessengerSetup() {
    }

    /** Makes the messenger of this rank (see {@link Messenger#create(Comm, Info)}). Collective over {@code comm}. */
    static Messenger create(Comm comm, Info info) {
        MsgConfig cfg = new MsgConfig(info, comm.size(), sizeParam(comm, "jrma.msg.handoffMin"),
                sizeParam(comm, "jrma.msg.eagerLimit"));
        InboxLayout lay = new InboxLayout(comm.size(), cfg);
        if (lay.total > Integer.MAX_VALUE - 4096) {
            throw new RmaException(ErrorClass.ERR_NO_MEM,
                    "messenger inbox of " + lay.total + " bytes for " + comm.size()
                    + " ranks exceeds 2 GiB: lower jrma_msg_area_bytes or jrma_msg_slots");
        }
        // issue at flush_local: on the packet path a batch's envelopes and payloads are queued and leave with the
        // tail that publishes them, in one frame, when the messenger flushes locally (eager issue sent each as a
        // frame of its own: two writes per message, and 16.8 -> 8.2 us one-way over TCP); the path applies one
        // origin's packets in order, so no flush has to wait between them (see Outbox); jrma_rdma=false keeps them
        // packets where UCX reaches the peer: on the RDMA lane and in the atomic domain (docs/ucx.md) the tail's
        // accumulate would be a UCP atomic, done at once, ahead of the envelopes still queued as packets
        Win inbox = Win.allocate(comm, lay.total, 1, Info.of("jrma_issue", "flush_local", "jrma_rdma", "false"));
        Win expose = Win.createDynamic(comm, null);
        inbox.setName("msg-inbox:" + comm.name());
        expose.setName("msg-expose:" + comm.name());
        inbox.lockAll(Win.MODE_NOCHECK);
        expose.lockAll(Win.MODE_NOCHECK);
        Messenger m = new Messenger(comm, cfg, lay, inbox, expose);
        // every rank's process id is in its inbox before anyone sends: the protocol to a rank of this JVM (hand-off)
        // is then the same from the first message on, not the area's until the receiver's messenger is made
        comm.barrier();
        return m;
    }

    /** A size parameter of the job (bytes); -1 for {@code auto} or unset. */
    private static long sizeParam(Comm comm, String name) {
        String v = Jrma.parameter(comm, name);
        if (v == null || v.isBlank() || "auto".equals(v.trim())) {
            return -1;
        }
        try {
            long x = Long.parseLong(v.trim());
            if (x >= 0) {
                return x;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new RmaException(ErrorClass.ERR_ARG, name + " = \"" + v + "\" is not a size in bytes or auto");
    }
}
