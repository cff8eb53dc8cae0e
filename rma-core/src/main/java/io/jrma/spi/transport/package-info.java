/**
 * The transport contract: what a transport may see (bytes, batches of packets, memory regions, remote keys, offsets,
 * ranks), nothing of datatypes, epochs or groups. {@link io.jrma.spi.transport.Transport} moves batches between
 * JVMs, {@link io.jrma.spi.transport.RemoteMemory} reaches registered memory of other JVMs one-sidedly. Below the
 * runtime that drives transports; the components that open them are found through {@code io.jrma.spi}.
 */
package io.jrma.spi.transport;
