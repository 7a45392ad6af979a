import { useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { Avatar, Button, Field, makeStyles, mergeClasses, Select, Spinner, Text, Textarea, tokens } from '@fluentui/react-components';
import { Send20Regular } from '@fluentui/react-icons';
import { usePeopleSearch, type Hypothesis, type PersonRef } from '../api';
import { activeMention, mentionMarkup } from '../mentions';

/** Spec 000 §9: option lookups wait for 100 ms of quiet. */
const LOOKUP_MS = 100;

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS },
  row: { display: 'flex', gap: tokens.spacingHorizontalS, alignItems: 'flex-end' },
  box: { position: 'relative', flex: 1, minWidth: 0 },
  textarea: { width: '100%' },
  popup: {
    position: 'absolute',
    left: 0,
    top: '100%',
    zIndex: 10,
    marginTop: '2px',
    minWidth: '260px',
    maxHeight: '240px',
    overflowY: 'auto',
    backgroundColor: tokens.colorNeutralBackground1,
    boxShadow: tokens.shadow16,
    borderRadius: tokens.borderRadiusMedium,
    padding: tokens.spacingVerticalXS,
  },
  option: {
    display: 'flex',
    alignItems: 'center',
    gap: tokens.spacingHorizontalS,
    padding: `${tokens.spacingVerticalXS} ${tokens.spacingHorizontalS}`,
    borderRadius: tokens.borderRadiusSmall,
    cursor: 'pointer',
  },
  active: { backgroundColor: tokens.colorNeutralBackground1Selected },
  empty: { padding: tokens.spacingHorizontalS, color: tokens.colorNeutralForeground3 },
  hint: { color: tokens.colorNeutralForeground3 },
});

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

/** Turns the typed "@Ana Lee" of each picked person into the stored markup `@[Ana Lee](user:id)`. */
export function toMarkup(text: string, picked: { id: string; name: string }[]): string {
  let out = text;
  for (const p of [...picked].sort((a, b) => b.name.length - a.name.length)) {
    out = out.split(`@${p.name}`).join(mentionMarkup(p));
  }
  return out;
}

export interface CommentBoxProps {
  /** The hypotheses a comment may go under; with more than one the box offers a choice. */
  hypotheses: Pick<Hypothesis, 'id' | 'title'>[];
  /** Preselected hypothesis (the node the box sits in). */
  hypothesisId?: string;
  busy?: boolean;
  autoFocus?: boolean;
  onSend: (hypothesisId: string, comment: string) => void;
}

/** A comment with @mentions: typing `@` offers people (GET people) and Enter or a click picks one. */
export function CommentBox({ hypotheses, hypothesisId, busy, autoFocus, onSend }: CommentBoxProps) {
  const s = useStyles();
  const listId = useId();
  const ref = useRef<HTMLTextAreaElement>(null);
  const caretAfterRender = useRef<number | null>(null);
  const [text, setText] = useState('');
  const [target, setTarget] = useState(hypothesisId ?? hypotheses[0]?.id ?? '');
  const [picked, setPicked] = useState<PersonRef[]>([]);
  const [mention, setMention] = useState<{ start: number; query: string } | null>(null);
  const [active, setActive] = useState(0);
  const [errors, setErrors] = useState<{ hypothesis?: string; text?: string }>({});
  const query = useDebounced(mention?.query ?? '', LOOKUP_MS);
  const people = usePeopleSearch(query, mention !== null);
  const options = mention ? (people.data ?? []).slice(0, 8) : [];

  useEffect(() => {
    if (!target && hypotheses[0]) setTarget(hypothesisId ?? hypotheses[0].id);
  }, [hypotheses, hypothesisId, target]);

  const track = (value: string, caret: number) => {
    setText(value);
    setMention(activeMention(value, caret));
    setActive(0);
    if (value.trim()) setErrors((e) => ({ ...e, text: undefined }));
  };

  const pick = (p: PersonRef) => {
    if (!mention) return;
    const caret = ref.current?.selectionStart ?? text.length;
    const insert = `@${p.name} `;
    const next = text.slice(0, mention.start) + insert + text.slice(caret);
    setText(next);
    setPicked((list) => (list.some((x) => x.id === p.id) ? list : [...list, p]));
    setMention(null);
    caretAfterRender.current = mention.start + insert.length;
  };

  // put the caret after the inserted mention as soon as the new text is on screen, before the next key arrives
  useLayoutEffect(() => {
    const pos = caretAfterRender.current;
    if (pos === null || !ref.current) return;
    caretAfterRender.current = null;
    ref.current.focus();
    ref.current.setSelectionRange(pos, pos);
  }, [text]);

  const send = () => {
    const next = {
      hypothesis: target ? undefined : 'Please select any hypothesis',
      text: text.trim() ? undefined : 'Please add comment details',
    };
    setErrors(next);
    if (next.hypothesis || next.text) return;
    onSend(target, toMarkup(text.trim(), picked));
    setText('');
    setPicked([]);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (mention && options.length) {
      if (e.key === 'ArrowDown') return (e.preventDefault(), setActive((a) => (a + 1) % options.length));
      if (e.key === 'ArrowUp') return (e.preventDefault(), setActive((a) => (a - 1 + options.length) % options.length));
      if (e.key === 'Enter' || e.key === 'Tab') return (e.preventDefault(), pick(options[active]));
    }
    if (mention && e.key === 'Escape') return (e.preventDefault(), e.stopPropagation(), setMention(null));
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      send();
    }
  };

  return (
    <div className={s.root}>
      {hypotheses.length > 1 && !hypothesisId && (
        <Field label="Hypothesis" validationMessage={errors.hypothesis} size="small">
          <Select value={target} onChange={(_, d) => setTarget(d.value)}>
            {hypotheses.map((h) => (
              <option key={h.id} value={h.id}>{h.title}</option>
            ))}
          </Select>
        </Field>
      )}
      {hypotheses.length <= 1 && errors.hypothesis && <Text role="alert" className={s.hint}>{errors.hypothesis}</Text>}
      <div className={s.row}>
        <Field className={s.box} validationMessage={errors.text} hint="Type @ to mention someone; Ctrl+Enter sends.">
          <div style={{ position: 'relative' }}>
            <Textarea
              ref={ref}
              className={s.textarea}
              value={text}
              placeholder="Add a comment"
              autoFocus={autoFocus}
              resize="vertical"
              aria-label="Comment"
              role="combobox"
              aria-expanded={mention !== null && options.length > 0}
              aria-controls={listId}
              aria-autocomplete="list"
              aria-activedescendant={mention && options[active] ? `${listId}-${options[active].id}` : undefined}
              onChange={(e, d) => track(d.value, e.target.selectionStart ?? d.value.length)}
              onKeyDown={onKeyDown}
              onClick={(e) => setMention(activeMention(text, e.currentTarget.selectionStart ?? text.length))}
              onBlur={() => setTimeout(() => setMention(null), 150)}
            />
            {mention !== null && (
              <div className={s.popup} role="listbox" id={listId} aria-label="People">
                {people.isFetching && !options.length ? (
                  <Spinner size="tiny" label="Searching…" />
                ) : !options.length ? (
                  <Text className={s.empty}>{query ? 'No options found' : 'Start typing to search'}</Text>
                ) : (
                  options.map((p, i) => (
                    <div
                      key={p.id}
                      id={`${listId}-${p.id}`}
                      role="option"
                      aria-selected={i === active}
                      className={mergeClasses(s.option, i === active && s.active)}
                      onMouseDown={(e) => {
                        e.preventDefault();
                        pick(p);
                      }}
                    >
                      <Avatar size={20} name={p.name} image={p.avatar ? { src: p.avatar } : undefined} color="colorful" aria-hidden />
                      {p.name}
                    </div>
                  ))
                )}
              </div>
            )}
          </div>
        </Field>
        <Button appearance="primary" icon={busy ? <Spinner size="tiny" /> : <Send20Regular />} disabled={!text.trim()} onClick={send}>
          Send
        </Button>
      </div>
    </div>
  );
}
