package io.jrma;

/** The window memory model (MPI_WIN_MODEL). jrma windows are always {@link #UNIFIED}. */
public enum MemoryModel {
    SEPARATE, UNIFIED
}
