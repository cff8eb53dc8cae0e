/**
 * Raw memory access (internal): the one Unsafe instance, addressing heap arrays and off-heap memory alike as
 * (base object, offset).
 */
package io.jrma.core.mem;
