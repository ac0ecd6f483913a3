/** `T` with its members writable: for building, member by member, an object that is read-only once built. */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };
