"""One open bundle on screen: the controller, the page, the task list, scenario and response, feedback."""
