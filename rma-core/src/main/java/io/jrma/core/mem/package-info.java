/**
 * Raw memory access (internal): {@link io.jrma.core.mem.Memory}, every access named by its memory ordering, addressing
 * heap arrays and off-heap memory alike as (base object, offset). The only package that touches
 * {@code sun.misc.Unsafe}.
 */
package io.jrma.core.mem;
