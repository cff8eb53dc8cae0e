/**
 * The datatype engine (internal): predefined element types, the flattened block layout of any derived type,
 * streaming copy between two layouts, type-signature matching, and the wire codec of layouts that packets
 * carry so the target can apply them without knowing the origin's datatype objects.
 */
package io.jrma.core.dt;
