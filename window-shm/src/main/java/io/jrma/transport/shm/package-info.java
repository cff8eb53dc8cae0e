/**
 * Active-message rings in shared memory between JVMs of one host ({@link io.jrma.transport.shm.ShmRingTransport}):
 * one Agrona {@code OneToOneRingBuffer} per ordered pair of JVMs, in a file of {@code /dev/shm} that is mapped by
 * both and unlinked once they have; packets are copied once into the ring by the origin and applied from the ring
 * by the target's progress agent. The TCP connection between the two JVMs stays for the control plane, aborts
 * and wake-ups of a sleeping progress thread. Layout in {@link io.jrma.transport.shm.RingFileDescriptor},
 * settings in {@link io.jrma.transport.shm.ShmParams}.
 */
package io.jrma.transport.shm;
