import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** The console renders only text: markup from a response or a saved name must never become HTML. */
const noHtmlInjection = {
  'no-restricted-properties': [
    'error',
    ...['innerHTML', 'outerHTML', 'insertAdjacentHTML'].map((property) => ({ property, message: 'Render text (JSX children or textContent), never HTML.' })),
    ...['write', 'writeln'].map((property) => ({ object: 'document', property, message: 'Render text (JSX children or textContent), never HTML.' })),
  ],
  'no-restricted-syntax': [
    'error',
    { selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']", message: 'Render text (JSX children), never HTML.' },
    { selector: "MemberExpression[property.value=/^(innerHTML|outerHTML|insertAdjacentHTML)$/]", message: 'Render text, never HTML.' },
  ],
  'no-eval': 'error',
  'no-implied-eval': 'error',
  'no-new-func': 'error',
};

/** Each storage backend's driver is imported only inside that backend's folder (src/store/<backend>/). */
const backendDrivers = (allowed) => ({
  'no-restricted-imports': [
    'error',
    {
      paths: ['level', 'classic-level', 'abstract-level', 'pg', 'pg-copy-streams']
        .filter((name) => !allowed.includes(name))
        .map((name) => ({ name, message: 'A storage driver belongs in its backend folder, src/store/<backend>/.' })),
    },
  ],
});

export default tseslint.config(
  { ignores: ['node_modules/', 'src/gen/', 'data/', '**/dist/', '.tmp/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  { files: ['console/**/*.{ts,tsx}'], rules: noHtmlInjection },
  { files: ['src/**/*.ts'], ignores: ['src/store/level/**', 'src/store/postgres/**'], rules: backendDrivers([]) },
  { files: ['src/store/level/**/*.ts'], rules: backendDrivers(['level', 'classic-level', 'abstract-level']) },
  { files: ['src/store/postgres/**/*.ts'], rules: backendDrivers(['pg', 'pg-copy-streams']) },
);
