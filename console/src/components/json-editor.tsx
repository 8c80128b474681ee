import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { EditorView, basicSetup } from 'codemirror';
import { Annotation, Compartment, EditorState, type Extension } from '@codemirror/state';
import { keymap } from '@codemirror/view';
import { json, jsonParseLinter } from '@codemirror/lang-json';
import { linter, lintGutter, type Diagnostic } from '@codemirror/lint';
import { autocompletion, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { HighlightStyle, syntaxHighlighting, syntaxTree } from '@codemirror/language';
import { tags } from '@lezer/highlight';
import type { SyntaxNode } from '@lezer/common';
import { checkAgainstSchema, pathText, schemaAt, type JsonSchema } from '../json-schema.ts';

interface Props {
  value: string;
  onChange(value: string): void;
  /** Checks the body against it as you type and completes its field names. */
  schema: JsonSchema | undefined;
  /** Ctrl/Cmd+Enter. */
  onSubmit(): void;
  label: string;
}

/** JSON colours from the page's theme variables, so that they follow light and dark with enough contrast. */
const jsonHighlight = HighlightStyle.define([
  { tag: tags.propertyName, color: 'var(--syntax-property)' },
  { tag: tags.string, color: 'var(--syntax-string)' },
  { tag: tags.number, color: 'var(--syntax-number)' },
  { tag: [tags.bool, tags.null], color: 'var(--syntax-keyword)' },
]);

/** Marks a change that brings the `value` prop into the editor, so that it is not reported back as an edit. */
const fromProp = Annotation.define<boolean>();

/** The nonce this page's Content-Security-Policy allows `<style>` elements with (set by the server per response). */
const styleNonce = document.querySelector<HTMLMetaElement>('meta[name="tms-style-nonce"]')?.content ?? '';

/** The JSON path of the object or array that contains `node`. */
function pathOf(node: SyntaxNode | null, doc: string): (string | number)[] {
  const path: (string | number)[] = [];
  for (let child = node, parent = node?.parent ?? null; parent; child = parent, parent = parent.parent) {
    if (parent.name === 'Property') {
      const name = parent.getChild('PropertyName');
      if (name && child !== name) path.unshift(JSON.parse(doc.slice(name.from, name.to)) as string);
    } else if (parent.name === 'Array' && child) {
      let index = 0;
      for (let sibling = child.prevSibling; sibling; sibling = sibling.prevSibling) if (!['[', ','].includes(sibling.name) && sibling.type.isError === false) index++;
      path.unshift(index);
    }
  }
  return path;
}

/** Where in the text a path's value (or its property name) is, for underlining a problem. */
function locate(view: EditorView, path: (string | number)[]): { from: number; to: number } {
  const doc = view.state.doc.toString();
  let node: SyntaxNode | null = syntaxTree(view.state).topNode.firstChild;
  let range = { from: node?.from ?? 0, to: node?.to ?? doc.length };
  for (const segment of path) {
    if (!node) break;
    let next: SyntaxNode | null = null;
    if (node.name === 'Object' && typeof segment === 'string') {
      for (const property of node.getChildren('Property')) {
        const name = property.getChild('PropertyName');
        if (name && doc.slice(name.from + 1, name.to - 1) === segment) {
          range = { from: name.from, to: name.to };
          next = property.lastChild;
          break;
        }
      }
      if (!next) return { from: node.from, to: Math.min(node.from + 1, node.to) };
    } else if (node.name === 'Array' && typeof segment === 'number') {
      const items: SyntaxNode[] = [];
      for (let child = node.firstChild; child; child = child.nextSibling) if (!['[', ']', ','].includes(child.name)) items.push(child);
      next = items[segment] ?? null;
      if (next) range = { from: next.from, to: next.to };
    }
    node = next;
  }
  return range.from === range.to ? { from: range.from, to: Math.min(range.from + 1, doc.length) } : range;
}

function schemaLinter(getSchema: () => JsonSchema | undefined) {
  const parse = jsonParseLinter();
  return (view: EditorView): Diagnostic[] => {
    const text = view.state.doc.toString();
    if (text.trim() === '') return [];
    const syntax = parse(view);
    if (syntax.length > 0) return syntax;
    const schema = getSchema();
    if (!schema) return [];
    return checkAgainstSchema(schema, JSON.parse(text)).map((problem) => ({
      ...locate(view, problem.path),
      severity: 'error',
      message: `${pathText(problem.path)}: ${problem.message}`,
    }));
  };
}

function fieldCompletion(getSchema: () => JsonSchema | undefined) {
  return (context: CompletionContext): CompletionResult | null => {
    const word = context.matchBefore(/"?[\w]*/);
    if (!word || (word.from === word.to && !context.explicit)) return null;
    const tree = syntaxTree(context.state);
    let node: SyntaxNode | null = tree.resolveInner(context.pos, -1);
    while (node && node.name !== 'Object') node = node.parent;
    if (!node) return null;
    // Only where a property name goes: not inside a value.
    const inner = tree.resolveInner(context.pos, -1);
    if (inner.name === 'String' && inner.parent?.name === 'Property') return null;
    const doc = context.state.doc.toString();
    const objectSchema = schemaAt(getSchema(), pathOf(node, doc));
    const properties = objectSchema?.properties;
    if (!properties) return null;
    const present = new Set(node.getChildren('Property').map((p) => p.getChild('PropertyName')).filter(Boolean).map((n) => doc.slice(n!.from + 1, n!.to - 1)));
    return {
      from: word.from,
      options: Object.entries(properties)
        .filter(([name]) => !present.has(name))
        .map(([name, schema]) => ({ label: name, type: 'property', detail: Array.isArray(schema.type) ? schema.type.join('|') : schema.type, info: schema.description, apply: `"${name}": ` })),
    };
  };
}

/** CodeMirror 6 with JSON, the schema's checks and completions, and the page's own colours. */
export function JsonEditor({ value, onChange, schema, onSubmit, label }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView>();
  const latest = useRef({ onChange, onSubmit, schema });
  latest.current = { onChange, onSubmit, schema };
  const lint = useRef(new Compartment());

  useEffect(() => {
    const extensions: Extension[] = [
      EditorView.cspNonce.of(styleNonce),
      keymap.of([{ key: 'Mod-Enter', run: () => (latest.current.onSubmit(), true) }]),
      basicSetup,
      json(),
      syntaxHighlighting(jsonHighlight),
      lintGutter(),
      lint.current.of(linter(schemaLinter(() => latest.current.schema), { delay: 250 })),
      autocompletion({ override: [fieldCompletion(() => latest.current.schema)] }),
      EditorView.contentAttributes.of({ 'aria-label': label, 'aria-multiline': 'true' }),
      EditorView.updateListener.of((update) => {
        if (update.docChanged && !update.transactions.some((t) => t.annotation(fromProp))) latest.current.onChange(update.state.doc.toString());
      }),
      EditorView.theme({
        '&': { backgroundColor: 'var(--field)', color: 'var(--text)', border: '1px solid var(--border)', borderRadius: '6px', minHeight: '10rem' },
        '.cm-gutters': { backgroundColor: 'var(--panel)', color: 'var(--muted)', borderRight: '1px solid var(--border)' },
        '.cm-activeLine, .cm-activeLineGutter': { backgroundColor: 'var(--highlight)' },
        '&.cm-focused': { outline: '2px solid var(--accent)' },
        '.cm-content': { caretColor: 'var(--text)', fontFamily: 'var(--mono)' },
        // Completions, lint messages and the lint panel: CodeMirror's own are light, unreadable on the dark theme.
        '.cm-tooltip, .cm-panels': { backgroundColor: 'var(--panel)', color: 'var(--text)', border: '1px solid var(--border)' },
        '.cm-tooltip-autocomplete ul li[aria-selected]': { backgroundColor: 'var(--accent)', color: 'var(--accent-text)' },
      }),
    ];
    view.current = new EditorView({ state: EditorState.create({ doc: value, extensions }), parent: host.current! });
    return () => view.current?.destroy();
    // The editor is made once; later values arrive through the effect below.
  }, []);

  // A layout effect runs in the same commit as its render. A passive one can wait for the next frame, and
  // Preact then runs it just before the next render with the value it captured, which may be older than
  // what the editor holds: that older text would overwrite the newer one.
  useLayoutEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== value) {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value }, annotations: fromProp.of(true) });
    }
  }, [value]);

  useEffect(() => {
    // A new operation brings a new schema: check the body against it now, not at the next keystroke.
    view.current?.dispatch({ effects: lint.current.reconfigure(linter(schemaLinter(() => latest.current.schema), { delay: 250 })) });
  }, [schema]);

  return <div class="editor" ref={host} />;
}
