/** The Node options that run a TypeScript file of this project, as `npm start` does (hooks.mjs). */
export const RUN_TYPESCRIPT = ['--import', new URL('./register.mjs', import.meta.url).href];
