/**
 * The wire (internal): the packet header layout and packet types, batches of wire-ready packets, and the
 * transport seam ({@code io.jrma.spi.transport.Transport}) that moves batches between ranks without knowing
 * datatypes, ops or epochs.
 */
package io.jrma.core.wire;
