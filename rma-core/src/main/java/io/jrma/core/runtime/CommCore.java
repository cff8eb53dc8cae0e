package io.jrma.core.runtime;

import io.jrma.Comm;

/**
 * What the window engine needs of a communicator besides the public {@link Comm} methods: the job, the world
 * ranks of its members and a control-plane all-gather. Internal.
 */
public interface CommCore extends Comm {
    Job job();

    /** World ranks of the members, in communicator order. */
    int[] worldRanks();

    /** All-gather of object references among the members (control plane: window creation, split, ...). */
    Object[] allgather(Object mine);

    /** An id for this communicator, the same at every member. */
    int contextId();
}
