import { render } from 'preact';
import { App } from './components/app.tsx';
import './styles.css';

render(<App />, document.getElementById('app')!);
