import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { javascript } from '@codemirror/lang-javascript';
import { bracketMatching, defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { EditorState } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';
import { useEffect, useRef, type CSSProperties } from 'react';

// A JavaScript editor (CodeMirror 6) for transforms. Loaded on demand (transform-section.tsx imports it lazily):
// CodeMirror is not part of the dashboard's first load. No bracket auto-closing and no Tab capture: what is typed
// is what is saved, and Tab still moves focus out of the editor.

export interface CodeEditorProps {
  value: string;
  onChange: (value: string) => void;
  /** The accessible name of the editable area. */
  label: string;
  invalid?: boolean;
}

const THEME = EditorView.theme({
  '&': {
    fontSize: '13px',
    border: '1px solid var(--code-editor-border, var(--mantine-color-default-border))',
    borderRadius: '4px',
  },
  '&.cm-focused': { outline: '2px solid var(--mantine-primary-color-filled)', outlineOffset: '-1px' },
  '.cm-content, .cm-gutters': { minHeight: '180px' },
  '.cm-scroller': { fontFamily: 'var(--mantine-font-family-monospace)', maxHeight: '420px', overflow: 'auto' },
});

export function CodeEditor({ value, onChange, label, invalid = false }: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  // The editor is made once; the latest callback is read at each change.
  const changed = useRef(onChange);
  changed.current = onChange;
  const latest = useRef(value);
  latest.current = value;

  useEffect(() => {
    const editor = new EditorView({
      parent: host.current ?? undefined,
      state: EditorState.create({
        doc: latest.current,
        extensions: [
          lineNumbers(),
          history(),
          drawSelection(),
          highlightActiveLine(),
          bracketMatching(),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          javascript(),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          THEME,
          EditorView.contentAttributes.of({ 'aria-label': label, 'aria-multiline': 'true' }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) changed.current(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
  }, [label]);

  // A change from outside (removed, an example inserted) replaces the text; one typed here is already in it.
  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== value)
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
  }, [value]);

  const border = invalid ? { '--code-editor-border': 'var(--mantine-color-error)' } : {};
  return <div ref={host} style={border as CSSProperties} />;
}
