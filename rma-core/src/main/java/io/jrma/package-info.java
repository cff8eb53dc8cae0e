/**
 * jrma's public API: start ranks ({@link io.jrma.Jrma}), communicators and groups, windows of every MPI-3
 * flavor ({@link io.jrma.Win}) with every communication and synchronization call, datatypes, ops, info,
 * requests, counters, and errors carrying the MPI error class ({@link io.jrma.RmaException}).
 */
package io.jrma;
