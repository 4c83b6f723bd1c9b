import RetryButton from './RetryButton.tsx';

/**
 * What an island shows when loading failed: what went wrong, announced (role alert), and the way
 * to try again where there is one. Its data-* attribute (data-plan-error, …) passes through.
 */
export default function LoadFailed({
  text,
  retryLabel,
  onRetry,
  className,
  ...data
}: {
  text: string;
  retryLabel: string;
  /** None: nothing to try again (the thing is not there). */
  onRetry: (() => void) | undefined;
  /** Its space above, where the page wants one (mt-6). */
  className?: string;
  [data: `data-${string}`]: string | boolean;
}) {
  return (
    <div role="alert" className={[className, 'rounded-xl bg-surface-muted p-4'].filter(Boolean).join(' ')} {...data}>
      <p>{text}</p>
      {onRetry && <RetryButton label={retryLabel} onRetry={onRetry} />}
    </div>
  );
}
