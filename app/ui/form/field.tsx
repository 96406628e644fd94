import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from "react";
import { optionListHtml, type Option } from "./option-list";

const controlClass =
  "mt-1 block w-full rounded-lg border border-slate-400 bg-white px-3 py-2 text-base text-slate-900 shadow-sm placeholder:text-slate-500 focus:border-teal-700 focus:outline-2 focus:outline-offset-0 focus:outline-teal-700 aria-[invalid=true]:border-rose-700";

interface FieldFrame {
  label: ReactNode;
  /** The first message is shown under the control and announced with it. */
  errors?: string[] | null;
  hint?: ReactNode;
  /** Shown under the error, e.g. links that resolve it ("Log in", "Reset your password"). */
  errorAction?: ReactNode;
  required?: boolean;
  className?: string;
}

/** Label, control, hint and error, wired together for screen readers. */
function useFieldIds(id?: string) {
  const generated = useId();
  const controlId = id ?? generated;
  return { controlId, hintId: `${controlId}-hint`, errorId: `${controlId}-error` };
}

function Frame({
  label,
  errors,
  hint,
  errorAction,
  required,
  className,
  ids,
  children,
}: FieldFrame & { ids: ReturnType<typeof useFieldIds>; children: ReactNode }) {
  const error = errors?.[0];
  return (
    <div className={className}>
      <label htmlFor={ids.controlId} className="block text-sm font-medium text-slate-800">
        {label}
        {required ? (
          <span aria-hidden="true" className="text-rose-700">
            {" *"}
          </span>
        ) : null}
      </label>
      {hint ? (
        <p id={ids.hintId} className="mt-1 text-sm text-slate-600">
          {hint}
        </p>
      ) : null}
      {children}
      {error ? (
        <p id={ids.errorId} className="mt-1 text-sm font-medium text-rose-700">
          {error}
        </p>
      ) : null}
      {error && errorAction ? <div className="mt-1 text-sm">{errorAction}</div> : null}
    </div>
  );
}

function describedBy(ids: ReturnType<typeof useFieldIds>, hint: unknown, errors?: string[] | null) {
  return [hint ? ids.hintId : null, errors?.length ? ids.errorId : null].filter(Boolean).join(" ") || undefined;
}

/** Numbers, addresses and codes read left to right in any page; what people type follows its own script. */
const LEFT_TO_RIGHT_TYPES = new Set(["email", "tel", "url", "password", "number"]);

export function Field({ label, errors, hint, errorAction, className, ...input }: FieldFrame & InputHTMLAttributes<HTMLInputElement>) {
  const ids = useFieldIds(input.id);
  return (
    <Frame {...{ label, errors, hint, errorAction, className, ids }} required={input.required}>
      <input
        dir={LEFT_TO_RIGHT_TYPES.has(input.type ?? "text") ? "ltr" : "auto"}
        {...input}
        id={ids.controlId}
        aria-invalid={errors?.length ? true : undefined}
        aria-describedby={describedBy(ids, hint, errors)}
        className={controlClass}
      />
    </Frame>
  );
}

export function TextareaField({ label, errors, hint, className, ...textarea }: FieldFrame & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const ids = useFieldIds(textarea.id);
  return (
    <Frame {...{ label, errors, hint, className, ids }} required={textarea.required}>
      <textarea
        dir="auto"
        {...textarea}
        id={ids.controlId}
        aria-invalid={errors?.length ? true : undefined}
        aria-describedby={describedBy(ids, hint, errors)}
        className={controlClass}
      />
    </Frame>
  );
}

export function SelectField({
  label,
  errors,
  hint,
  className,
  children,
  options,
  ...select
}: FieldFrame &
  SelectHTMLAttributes<HTMLSelectElement> & {
    /**
     * A long list the same for many visitors, written once as HTML (ui/form/option-list.ts) instead
     * of `children`; `defaultValue` marks the chosen one. Only on a page that loads no React.
     */
    options?: readonly Option[];
  }) {
  const ids = useFieldIds(select.id);
  // A form posted back with one name repeated offers several values; a single select shows the first.
  const defaultValue = !select.multiple && Array.isArray(select.defaultValue) ? select.defaultValue[0] : select.defaultValue;
  const control = {
    ...select,
    id: ids.controlId,
    "aria-invalid": errors?.length ? true : undefined,
    "aria-describedby": describedBy(ids, hint, errors),
    className: controlClass,
  };
  return (
    <Frame {...{ label, errors, hint, className, ids }} required={select.required}>
      {options ? (
        <select
          {...control}
          defaultValue={undefined}
          dangerouslySetInnerHTML={{ __html: optionListHtml(options, defaultValue === undefined ? undefined : String(defaultValue)) }}
        />
      ) : (
        <select {...control} defaultValue={defaultValue}>
          {children}
        </select>
      )}
    </Frame>
  );
}
