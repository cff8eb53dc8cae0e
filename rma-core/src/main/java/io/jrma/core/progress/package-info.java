/**
 * The per-JVM progress agent (internal): an Agrona-style agent whose non-blocking duty cycle delivers arrived
 * batches to windows and continues blocked work; run by a dedicated thread, by waiting callers, or both.
 */
package io.jrma.core.progress;
