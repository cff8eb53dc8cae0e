/**
 * How the engine's lowest packages report a misuse (internal): {@link io.jrma.core.err.Errors} makes the public
 * API's {@code RmaException} without linking it, so that the packages the public API is built on (memory, datatypes,
 * ops, parameters) do not depend on the API package in turn.
 */
package io.jrma.core.err;
