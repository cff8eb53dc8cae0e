/**
 * The job secret's proof: every connection of a job (to the launcher and between JVMs, whatever transport
 * carries it) starts with the mutual HMAC handshake of {@link Handshake}.
 */
package io.jrma.core.auth;
