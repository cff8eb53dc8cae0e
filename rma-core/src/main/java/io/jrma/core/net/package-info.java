/**
 * The network side of a job that spans JVMs: the TCP IO agent ({@link io.jrma.core.net.TcpTransport}, one per
 * JVM, one connection per pair of JVMs shared by all their ranks), its frame layout
 * ({@link io.jrma.core.net.FrameDescriptor}), the per-job secret handshake ({@link io.jrma.core.net.Handshake})
 * and the run-time parameters of the network ({@link io.jrma.core.net.NetParams}).
 */
package io.jrma.core.net;
