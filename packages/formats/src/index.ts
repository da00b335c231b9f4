// @vellum/formats: one module per credential format. Nothing is exported yet.
export {};
