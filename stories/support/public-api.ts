// custom-elements.json lists every class member, private state included; Storybook shows each one as a row of
// the docs table (and a control). Designers get the public API only.

interface Member {
  privacy?: string;
  static?: boolean;
}
interface Module {
  declarations?: { members?: Member[] }[];
}

/** A copy of the manifest without private, protected or static members. */
export function publicApi<M extends { modules: object[] }>(manifest: M): M {
  const modules = (manifest.modules as Module[]).map((mod) => ({
    ...mod,
    declarations: mod.declarations?.map((d) => ({
      ...d,
      members: d.members?.filter((m) => !m.static && (m.privacy ?? 'public') == 'public'),
    })),
  }));
  return { ...manifest, modules };
}
