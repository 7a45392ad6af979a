import {
  Avatar,
  AvatarGroup,
  AvatarGroupItem,
  AvatarGroupPopover,
  makeStyles,
  partitionAvatarGroupItems,
  Text,
  tokens,
} from '@fluentui/react-components';

const useStyles = makeStyles({
  person: { display: 'inline-flex', alignItems: 'center', gap: tokens.spacingHorizontalS, minWidth: 0 },
  name: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
});

export interface PersonLike {
  id?: string;
  name: string;
  avatar?: string | null;
}

/** A person's avatar (initials when there is no picture), optionally with the name beside it. */
export function PersonAvatar({ person, size = 24, showName }: { person: PersonLike; size?: 16 | 20 | 24 | 28 | 32 | 36 | 40; showName?: boolean }) {
  const s = useStyles();
  const avatar = (
    <Avatar
      name={person.name}
      image={person.avatar ? { src: person.avatar } : undefined}
      size={size}
      color="colorful"
      aria-hidden={showName || undefined}
    />
  );
  if (!showName) return avatar;
  return (
    <span className={s.person}>
      {avatar}
      <Text className={s.name}>{person.name}</Text>
    </span>
  );
}

export interface PersonAvatarGroupProps {
  people: PersonLike[];
  /** At most this many avatars inline; the rest sit behind "+N" (spec 000 §9: responders capped at 5). */
  max?: number;
  size?: 20 | 24 | 28 | 32;
}

/** A stack of avatars, capped, with the overflow listed in a popover. */
export function PersonAvatarGroup({ people, max = 5, size = 24 }: PersonAvatarGroupProps) {
  const { inlineItems, overflowItems } = partitionAvatarGroupItems({ items: people, maxInlineItems: max });
  return (
    <AvatarGroup layout="stack" size={size} aria-label={`${people.length} people`}>
      {inlineItems.map((p) => (
        <AvatarGroupItem key={p.id ?? p.name} name={p.name} image={p.avatar ? { src: p.avatar } : undefined} />
      ))}
      {overflowItems && (
        <AvatarGroupPopover triggerButton={{ 'aria-label': `${overflowItems.length} more people` }}>
          {overflowItems.map((p) => (
            <AvatarGroupItem key={p.id ?? p.name} name={p.name} image={p.avatar ? { src: p.avatar } : undefined} />
          ))}
        </AvatarGroupPopover>
      )}
    </AvatarGroup>
  );
}
