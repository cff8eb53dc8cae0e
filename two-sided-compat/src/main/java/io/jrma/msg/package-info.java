/**
 * Two-sided messaging on the one-sided core: {@link io.jrma.msg.Messenger} (MPI point-to-point: send, receive,
 * probe, nonblocking requests with MPI's matching and ordering rules) and {@link io.jrma.msg.Collectives}
 * (barrier, broadcast, reductions, gathers, scatters, all-to-all, scans), built only on jrma's public API
 * (windows in lock_all epochs, flush, accumulate, dynamic windows), so they work unchanged whether the ranks
 * share a JVM or not.
 */
package io.jrma.msg;
