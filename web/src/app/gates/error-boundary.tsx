import { Component, type ErrorInfo, type ReactNode } from 'react';
import { Button } from '@fluentui/react-components';
import { ErrorCircle24Regular } from '@fluentui/react-icons';
import { EmptyState } from '../../components/empty-state';

export const RENDER_ERROR_TEXT = 'Sorry.. there was an error';

interface State {
  error: Error | null;
}

/** Catches render errors of the page below it; `resetKey` (the location) clears it on navigation. */
export class ErrorBoundary extends Component<{ children: ReactNode; resetKey?: string }, State> {
  state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  componentDidCatch(error: Error, info: ErrorInfo) {
    console.error('render error', error, info.componentStack);
  }

  componentDidUpdate(prev: { resetKey?: string }) {
    if (this.state.error && prev.resetKey !== this.props.resetKey) this.setState({ error: null });
  }

  render() {
    if (!this.state.error) return this.props.children;
    return (
      <EmptyState
        role="alert"
        icon={<ErrorCircle24Regular />}
        title={RENDER_ERROR_TEXT}
        description={this.state.error.message}
        actions={
          <Button appearance="primary" onClick={() => this.setState({ error: null })}>
            Try again
          </Button>
        }
      />
    );
  }
}
