package io.jrma.core.config;

import io.jrma.core.err.ErrorKind;
import io.jrma.core.err.Errors;
import java.util.Locale;
import java.util.Map;

/**
 * One named run-time parameter: a name ({@code jrma.*}), a default, a scope and one sentence of description.
 * A value is looked up, first match wins, in the job's parameter map, the JVM system properties, and the
 * environment (name upper-cased with dots as underscores: {@code jrma.path} → {@code JRMA_PATH}).
 *
 * <p>Immutable; any thread.
 */
public final class Param {
    private final String name;
    private final String defaultValue;
    private final String scope;
    private final String description;

    public Param(String name, String defaultValue, String scope, String description) {
        this.name = name;
        this.defaultValue = defaultValue;
        this.scope = scope;
        this.description = description;
    }

    public String name() {
        return name;
    }

    public String defaultValue() {
        return defaultValue;
    }

    public String scope() {
        return scope;
    }

    public String description() {
        return description;
    }

    /** The environment-variable form of the name. */
    public String envName() {
        return name.toUpperCase(Locale.ROOT).replace('.', '_');
    }

    /** The value in force for a job given its explicit parameters. */
    public String get(Map<String, String> jobParams) {
        String v = jobParams == null ? null : jobParams.get(name);
        if (v == null) {
            v = System.getProperty(name);
        }
        if (v == null) {
            v = System.getenv(envName());
        }
        return v == null ? defaultValue : v.trim();
    }

    public long getLong(Map<String, String> jobParams) {
        String v = get(jobParams);
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw Errors.of(ErrorKind.ERR_ARG, "run-time parameter " + name + "=" + v + " is not an integer");
        }
    }

    /** The value, which must be one of {@code allowed}. */
    public String getChoice(Map<String, String> jobParams, String... allowed) {
        String v = get(jobParams).toLowerCase(Locale.ROOT);
        for (String a : allowed) {
            if (a.equals(v)) {
                return a;
            }
        }
        throw Errors.of(ErrorKind.ERR_ARG, "run-time parameter " + name + "=" + v + " is not one of "
                + String.join("|", allowed));
    }
}
