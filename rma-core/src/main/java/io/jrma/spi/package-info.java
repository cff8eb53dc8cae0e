/**
 * The service-provider interfaces of jrma's components, each found with {@code ServiceLoader} so that rma-core
 * links none of them: transports ({@link io.jrma.spi.TransportProvider} opening a {@link io.jrma.spi.Transport},
 * selected per job by {@link io.jrma.spi.Transports}), the multi-JVM job starter ({@link io.jrma.spi.JobStarter},
 * in the launcher module) and the buffer allocator ({@link io.jrma.spi.BufferAllocator}, in window-shm).
 */
package io.jrma.spi;
