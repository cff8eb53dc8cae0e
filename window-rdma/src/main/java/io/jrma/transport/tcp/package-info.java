/**
 * The network side of a job that spans JVMs: the TCP IO agent ({@link io.jrma.transport.tcp.TcpTransport}, one per
 * JVM, one connection per pair of JVMs shared by all their ranks), its frame layout
 * ({@link io.jrma.transport.tcp.FrameDescriptor}), the per-job secret handshake ({@link io.jrma.core.auth.Handshake})
 * and the run-time parameters of the network ({@link io.jrma.transport.tcp.NetParams}).
 */
package io.jrma.transport.tcp;
