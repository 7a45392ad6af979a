import { Fragment, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { Divider, makeStyles, tokens } from '@fluentui/react-components';
import type { SelfServiceFlow, UiNode, UiNodeGroup } from '@contracts/identity';
import {
  ButtonNode,
  ContentNode,
  FieldNode,
  inputAttrs,
  isField,
  isHidden,
  isSubmit,
  isTrigger,
  nodeLabel,
  UiMessages,
} from './flow-node';

export const PASSWORDS_DIFFER = 'Passwords do not match';
export const CONFIRM_LABEL = 'Confirm password';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalL },
  form: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalL },
  buttons: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS, marginTop: tokens.spacingVerticalS },
});

/** A method's part of the flow: its own <form>, so Enter submits that method and only its fields count. */
export interface FlowSection {
  group: UiNodeGroup;
  nodes: UiNode[];
}

/**
 * Splits a flow's nodes into one section per method group, in the server's order. The `default` group's hidden
 * nodes (csrf_token) go with every section; its visible ones (the identifier) open the first section with fields.
 */
export function flowSections(nodes: UiNode[], groups?: UiNodeGroup[]): { hidden: UiNode[]; sections: FlowSection[] } {
  const hidden = nodes.filter((n) => n.group === 'default' && isHidden(n));
  const shared = nodes.filter((n) => n.group === 'default' && !isHidden(n));
  const sections: FlowSection[] = [];
  for (const node of nodes) {
    if (node.group === 'default' || (groups && !groups.includes(node.group))) continue;
    let section = sections.find((s) => s.group === node.group);
    if (!section) sections.push((section = { group: node.group, nodes: [] }));
    section.nodes.push(node);
  }
  if (shared.length) {
    const first = sections.find((s) => s.nodes.some(isField));
    if (first) first.nodes.unshift(...shared);
    else sections.unshift({ group: 'default', nodes: shared });
  }
  return { hidden, sections };
}

/** `traits.name.first` → `{traits: {name: {first}}}`: the nested body Ory's SDK sends. */
export function nestValues(flat: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(flat)) {
    const parts = key.split('.');
    let at = out;
    for (const part of parts.slice(0, -1)) at = (at[part] ??= {}) as Record<string, unknown>;
    at[parts[parts.length - 1]] = value;
  }
  return out;
}

const initialValues = (nodes: UiNode[]) =>
  Object.fromEntries(
    nodes.flatMap((n) => {
      const a = inputAttrs(n);
      return a && !isSubmit(n) && !isTrigger(n) ? [[a.name, a.value ?? (a.type === 'checkbox' ? false : '')]] : [];
    }),
  ) as Record<string, unknown>;

export interface FlowFormProps {
  flow: SelfServiceFlow;
  /** receives the nested body of the section submitted, with `method` and csrf_token */
  onSubmit(body: Record<string, unknown>): unknown;
  busy?: boolean;
  /** show only these method groups (a settings page's section) */
  groups?: UiNodeGroup[];
  /** leave nodes out (e.g. a link the page offers as a button) */
  hideNode?(node: UiNode): boolean;
  /** labels by node name instead of the server's */
  labels?: Record<string, string>;
  /** a "Confirm password" field after a new password, checked here */
  confirmPassword?: boolean;
  /** focus the first empty field (on by default: the flow pages are single-purpose) */
  autoFocus?: boolean;
  /**
   * A button node with `onclickTrigger` (WebAuthn): returns the values to submit with (e.g. the credential JSON in
   * `webauthn_login`), or null when the user cancelled.
   */
  onTrigger?(node: UiNode, values: Record<string, unknown>): Promise<Record<string, unknown> | null>;
}

/**
 * Renders a Kratos flow's UI with Fluent UI: the flow's messages, then one form per method with labelled fields,
 * field messages, text, images, links and the method's buttons.
 */
export function FlowForm(props: FlowFormProps) {
  const { flow, onSubmit, busy = false, groups, hideNode, labels, confirmPassword, autoFocus = true, onTrigger } = props;
  const s = useStyles();
  const nodes = useMemo(() => flow.ui.nodes.filter((n) => !hideNode?.(n)), [flow, hideNode]);
  const { hidden, sections } = useMemo(() => flowSections(nodes, groups), [nodes, groups]);
  const [values, setValues] = useState(() => initialValues(flow.ui.nodes));
  const [confirm, setConfirm] = useState('');
  const [confirmError, setConfirmError] = useState<string>();
  // a flow answered again (a wrong password, the next step) starts from the server's values
  const [answered, setAnswered] = useState(0);
  useEffect(() => {
    setValues(initialValues(flow.ui.nodes));
    setConfirm('');
    setAnswered((n) => n + 1);
  }, [flow]);

  // then a field the answer marks wrong (a mistyped code) takes focus with its text selected: typing replaces it.
  // Once per answer, after its values are shown; never while the user types.
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!autoFocus || !answered) return;
    const wrong = flow.ui.nodes.filter((n) => isField(n) && n.messages.some((m) => m.type === 'error')).map((n) => inputAttrs(n)!.name);
    const input = [...(root.current?.querySelectorAll('input') ?? [])].find((i) => wrong.includes(i.name));
    if (!input) return;
    input.focus();
    input.select();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [answered]);

  const focusName = useMemo(() => {
    const fields = sections[0]?.nodes.filter((n) => isField(n) && !inputAttrs(n)!.disabled) ?? [];
    const target = fields.find((n) => !inputAttrs(n)!.value) ?? fields[0];
    return target ? inputAttrs(target)!.name : undefined;
  }, [sections]);

  const bodyFor = (section: FlowSection, extra: Record<string, unknown>) => {
    const flat: Record<string, unknown> = {};
    for (const n of [...hidden, ...section.nodes]) {
      const a = inputAttrs(n);
      if (a && !isSubmit(n) && !isTrigger(n)) flat[a.name] = values[a.name];
    }
    if (section.group !== 'default') flat.method = section.group;
    return nestValues({ ...flat, ...extra });
  };

  const submitSection = (section: FlowSection, e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    // the button pressed (its name and value: `method`, or a second action such as resending a code)
    const submitter = (e.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
    const button = submitter?.name ? submitter : null;
    const first = section.nodes.find(isSubmit);
    const extra: Record<string, unknown> = {};
    if (button) extra[button.name] = button.value;
    else if (first) extra[inputAttrs(first)!.name] = inputAttrs(first)!.value;
    const newPassword = confirmPassword && section.nodes.some((n) => inputAttrs(n)?.type === 'password');
    if (newPassword && String(values.password ?? '') !== confirm) {
      setConfirmError(PASSWORDS_DIFFER);
      return;
    }
    setConfirmError(undefined);
    void onSubmit(bodyFor(section, extra));
  };

  const trigger = async (section: FlowSection, node: UiNode) => {
    if (!onTrigger) return;
    const answer = await onTrigger(node, values);
    if (answer) void onSubmit(bodyFor(section, answer));
  };

  return (
    <div className={s.root} ref={root}>
      <UiMessages messages={flow.ui.messages} />
      {sections.map((section, i) => {
        const buttons = section.nodes.filter((n) => isSubmit(n) || isTrigger(n));
        return (
          <Fragment key={section.group}>
            {i > 0 && <Divider>or</Divider>}
            <form
              className={s.form}
              noValidate
              aria-label={sections.length > 1 ? buttons.map((b) => nodeLabel(b, labels))[0] : undefined}
              data-group={section.group}
              onSubmit={(e) => submitSection(section, e)}
            >
              {section.nodes.map((node, j) => {
                if (isSubmit(node) || isTrigger(node) || isHidden(node)) return null;
                if (!isField(node)) return <ContentNode key={`c${j}`} node={node} />;
                const a = inputAttrs(node)!;
                const focus = autoFocus && i === 0 && a.name === focusName;
                const isNewPassword = confirmPassword && a.type === 'password';
                return (
                  <Fragment key={a.name}>
                    <FieldNode
                      node={node}
                      label={nodeLabel(node, labels)}
                      value={values[a.name]}
                      autoFocus={focus}
                      onChange={(v) => setValues((prev) => ({ ...prev, [a.name]: v }))}
                    />
                    {isNewPassword && (
                      <FieldNode
                        node={{ ...node, messages: [], attributes: { ...a, name: 'password_confirm' } }}
                        label={CONFIRM_LABEL}
                        value={confirm}
                        extraError={confirmError}
                        onChange={(v) => setConfirm(String(v))}
                      />
                    )}
                  </Fragment>
                );
              })}
              {buttons.length > 0 && (
                <div className={s.buttons}>
                  {buttons.map((node, j) => (
                    <ButtonNode
                      key={`${inputAttrs(node)!.name}-${j}`}
                      node={node}
                      label={nodeLabel(node, labels)}
                      // one primary action a page: the first method's; the others (passkey, recovery code) are
                      // alternatives
                      primary={i === 0 && j === 0}
                      busy={busy}
                      onClick={isTrigger(node) ? () => void trigger(section, node) : undefined}
                    />
                  ))}
                </div>
              )}
            </form>
          </Fragment>
        );
      })}
    </div>
  );
}
