package io.jrma;

import java.io.Serializable;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Info hints (MPI_Info): an ordered map of string keys to string values. Keys jrma honours on windows are
 * listed in {@code Win}'s Javadoc; others are kept and ignored.
 *
 * <p>Not thread-safe; windows copy the info they are given.
 */
public final class Info implements Serializable {
    private static final long serialVersionUID = 1L;
    /** Longest key MPI allows (MPI_MAX_INFO_KEY). */
    public static final int MAX_KEY = 255;
    /** Longest value MPI allows (MPI_MAX_INFO_VAL). */
    public static final int MAX_VALUE = 1024;
    private final Map<String, String> map = new LinkedHashMap<>();

    public Info() {
    }

    /** An info with the given key/value pairs: {@code Info.of("no_locks", "true")}. */
    public static Info of(String... keyValues) {
        if (keyValues.length % 2 != 0) {
            throw new RmaException(ErrorClass.ERR_ARG,
                    "Info.of needs key/value pairs, got " + keyValues.length + " strings");
        }
        Info i = new Info();
        for (int k = 0; k < keyValues.length; k += 2) {
            i.set(keyValues[k], keyValues[k + 1]);
        }
        return i;
    }

    public Info set(String key, String value) {
        if (key == null || key.isEmpty() || key.length() > MAX_KEY) {
            throw new RmaException(ErrorClass.ERR_INFO_KEY, "info key must have 1.." + MAX_KEY + " characters: " + key);
        }
        if (value == null || value.length() > MAX_VALUE) {
            throw new RmaException(ErrorClass.ERR_INFO_VALUE, "info value for " + key + " must have at most "
                    + MAX_VALUE + " characters");
        }
        map.put(key, value);
        return this;
    }

    /** The value, or null. */
    public String get(String key) {
        return map.get(key);
    }

    public void delete(String key) {
        if (map.remove(key) == null) {
            throw new RmaException(ErrorClass.ERR_INFO_NOKEY, "info has no key " + key);
        }
    }

    public Set<String> keys() {
        return Collections.unmodifiableSet(map.keySet());
    }

    public int size() {
        return map.size();
    }

    public Info dup() {
        Info i = new Info();
        i.map.putAll(map);
        return i;
    }

    @Override
    public String toString() {
        return "Info" + map;
    }
}
