package io.jrma.ga;

import java.util.Arrays;

/** A growable int array. Not thread-safe. */
final class IntList {
    int[] a = new int[8];
    int size;

    void add(int v) {
        if (size == a.length) {
            a = Arrays.copyOf(a, size * 2);
        }
        a[size++] = v;
    }

    int get(int i) {
        return a[i];
    }

    void clear() {
        size = 0;
    }
}
