package io.jrma;

/** How a window's memory came to be (MPI_WIN_CREATE_FLAVOR). */
public enum Flavor {
    /** Memory the user owns (MPI_Win_create). */
    CREATE,
    /** Memory the library allocated (MPI_Win_allocate). */
    ALLOCATE,
    /** Memory the library allocated so that ranks sharing memory may load/store it (MPI_Win_allocate_shared). */
    SHARED,
    /** No memory at creation; regions attached later (MPI_Win_create_dynamic). */
    DYNAMIC
}
