/**
 * The window engine: window creation for every flavor, the epoch state machine and synchronization
 * algorithms ({@link io.jrma.sync.Epochs}), the direct path (load/store and CPU atomics on the target's memory,
 * lock words taken by the origin) and the packet path (MPICH-style wire-ready queues with lock/op/unlock
 * coalescing, ack elision and GET piggy-backing at the origin; validation, application and a FIFO lock
 * manager at the target). Found by {@link java.util.ServiceLoader} as {@code io.jrma.Win.WindowProvider}.
 */
package io.jrma.sync;
