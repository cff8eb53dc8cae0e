/**
 * The {@code ucx} transport component: UCX's UCP layer (Debian {@code libucx0}) bound through JNA
 * ({@link io.jrma.transport.ucx.UcxWorker}), the packet transport over its tagged messages
 * ({@link io.jrma.transport.ucx.UcxTransport}) with its memory side ({@code UcxMemory}: registration, keys, put, get,
 * atomics and flushes for the window engine's RDMA lane and atomic domain), and its provider
 * ({@link io.jrma.transport.ucx.UcxProvider}).
 *
 * <p>Why JNA and not JUCX: JUCX (UCX's own Java binding, Maven Central) has no remote atomics and no build for
 * Debian's UCX 1.13 (1.12.1 binds against it), so atomics would go through JNA anyway; one binding of about
 * thirty calls through JNA's direct mapping (which jrma already uses for its system calls) keeps a single set of
 * handles, one lock around the worker, no JNI shim to ship and no second dependency. Messages use UCP's tagged
 * API with probe, so UCX never calls back into Java.
 */
package io.jrma.transport.ucx;
