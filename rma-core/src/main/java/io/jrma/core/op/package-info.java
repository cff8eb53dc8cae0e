/**
 * Reduction kernels (internal): the predefined ops on every element type, atomic per element on shared
 * memory (CPU atomics, compare-and-swap loops, a striped lock table for wide elements), and fast non-atomic
 * loops for local reductions.
 */
package io.jrma.core.op;
