/**
 * The service-provider interfaces of jrma's components, each found with {@code ServiceLoader} so that rma-core
 * links none of them: transports ({@link io.jrma.spi.TransportProvider} opening a transport of
 * {@link io.jrma.spi.transport}, selected per job by {@link io.jrma.spi.Transports}), the multi-JVM job starter
 * ({@link io.jrma.spi.JobStarter}, in the launcher module), the buffer allocator ({@link io.jrma.spi.BufferAllocator},
 * in window-shm) and the joining of jobs other launchers started ({@link io.jrma.spi.WorldBootstrap}).
 */
package io.jrma.spi;
