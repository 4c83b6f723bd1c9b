/** The red box of spec 4, announced to screen readers as soon as it appears. */
export default function ErrorBox({ message }: { message: string | undefined }) {
  return (
    <div role="alert" className="empty:hidden">
      {message && (
        <p className="rounded-xl border border-red-300 bg-red-50 px-4 py-3 text-sm text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200">
          {message}
        </p>
      )}
    </div>
  );
}
