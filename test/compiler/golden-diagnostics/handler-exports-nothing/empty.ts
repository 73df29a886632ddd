// Nothing here yet.
export {};
