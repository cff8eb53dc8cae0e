/**
 * The operating system, in one place: libc through JNA or the JDK's linker ({@link Libc}, {@link Downcall}),
 * futex wait and wake on shared words ({@link Futex}), CPU affinity ({@link Affinity}), copies between
 * processes ({@link CrossMemory}: process_vm_readv/writev, and {@link ProcMem}: /proc/PID/mem) and the host's
 * identity ({@link HostId}) and its addresses ({@link LocalAddresses}). No other package declares native calls.
 */
package io.jrma.core.os;
