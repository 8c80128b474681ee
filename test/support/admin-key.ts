/** The admin API key of every test server: its own module, so that light helpers (grpc.ts) need not load the app. */
export const ADMIN_KEY = 'tms_test_admin_key_0123456789abcdef';
