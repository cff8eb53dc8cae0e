/**
 * Shared-memory segments in {@code /dev/shm}: creation with the room checked and every page written, mapping
 * by other JVMs of the host, and reclaiming the files of dead JVMs.
 */
package io.jrma.shm;
